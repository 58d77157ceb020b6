"""Unit rows written by `insert_units` against those the ORM's `bulk_create` writes (also run on
PostgreSQL: `make test`'s PG_TESTS)."""

from __future__ import annotations

import pytest
from django.db import connection

from indexing.models import CodeUnit, FileVersion, Repository
from indexing.unit_rows import WrittenUnit, insert_units

pytestmark = pytest.mark.django_db

FIELDS = [f.attname for f in CodeUnit._meta.concrete_fields if not f.primary_key]


def rows(version: FileVersion, count: int) -> list[dict]:
    """Units of every shape a parse gives: empty and long texts, quotes, backslashes and
    non-ASCII in texts and in the JSON lists, both booleans."""
    made = []
    for n in range(count):
        made.append(
            {
                "file_version_id": version.pk,
                "repository_id": version.repository_id,
                "path": version.path,
                "language": "python",
                "kind": ("function", "method", "class", "module")[n % 4],
                "name": f"name_{n}",
                "qualname": f"Outer.name_{n}" if n % 2 else f"name_{n}",
                "parent_qualname": "Outer" if n % 2 else "",
                "class_name": "Outer" if n % 2 else "",
                "class_summary": "Holds things." if n % 2 else "",
                "module_summary": "Ünïcode — and 'quotes'.",
                "start_line": 10 * n + 1,
                "end_line": 10 * n + 9,
                "signature": f"def name_{n}(a, b='%s', *c)",
                "docstring": "" if n % 3 else 'Says "hi"\\n\n  indented\t tab',
                "code": f"def name_{n}(a, b='%s', *c):\n    return a % b  # 100%\n" * (n % 5 + 1),
                "decorators": [] if n % 2 else ["property", "functools.cache", "x.y('é')"],
                "defines": [f"name_{n}", 'a"b', "c\\d"],
                "is_async": bool(n % 2),
            }
        )
    return made


@pytest.fixture
def version():
    repository = Repository.objects.create(name="rows", source_kind="local", source="/x")
    return FileVersion.objects.create(repository=repository, path="pkg/mod.py", sha256="0" * 64)


def stored(pks: list[int]) -> list[tuple]:
    by_pk = {
        row[0]: row[1:] for row in CodeUnit.objects.filter(pk__in=pks).values_list("pk", *FIELDS)
    }
    return [by_pk[pk] for pk in pks]


@pytest.mark.parametrize("count", [1, 140])  # 140: more than one INSERT on SQLite (52 a batch)
def test_the_same_rows_as_bulk_create(version, count):
    made = rows(version, count)
    written = insert_units(made)
    reference = CodeUnit.objects.bulk_create(CodeUnit(**row) for row in made)
    assert stored([u.pk for u in written]) == stored([u.pk for u in reference])
    # Each id is its own row's: the returned ids are in the order the rows were given.
    assert [u.qualname for u in written] == [row["qualname"] for row in made]
    assert [u.pk for u in written] == sorted(u.pk for u in written)
    assert stored([u.pk for u in written])[-1][FIELDS.index("start_line")] == made[-1]["start_line"]
    assert all(isinstance(u, WrittenUnit) and u.vector_id == str(u.pk) for u in written)


def test_a_backend_without_returned_ids_inserts_row_by_row(version, monkeypatch):
    made = rows(version, 9)
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    by_orm = insert_units(made)
    monkeypatch.undo()
    assert stored([u.pk for u in by_orm]) == stored([u.pk for u in insert_units(made)])
    assert [u.qualname for u in by_orm] == [row["qualname"] for row in made]
