"""New code units' rows, written as one multi-row INSERT per batch with their values prepared
here: the ORM's `bulk_create` spent most of a chunk's write in its per-value work (19 fields a
unit, each through its compiler), far more than the database did.

The columns and their order are the model's own, JSON goes through the backend's own adapter,
and the ids come back by RETURNING as `bulk_create` has them on SQLite and PostgreSQL; a backend
that cannot return them inserts row by row. tests/indexing/test_unit_rows.py holds the rows to
what `bulk_create` writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from types import SimpleNamespace
from typing import Any

from django.db import connection, models

from indexing.models import CodeUnit

_FIELDS = [f for f in CodeUnit._meta.concrete_fields if not f.primary_key]
_ROWS_PER_INSERT = 500  # where the backend sets no limit of parameters


class WrittenUnit(SimpleNamespace):
    """A unit just written: its row's values as attributes (those `indexing.unit_text.UnitParts`
    names among them), its id, and the id of its vectors, as a `CodeUnit` has them."""

    @property
    def vector_id(self) -> str:
        return str(self.pk)


def insert_units(rows: Sequence[dict[str, Any]]) -> list[WrittenUnit]:
    """Insert units given as {field attname: value} (every field of `CodeUnit` but its id), in
    order; the written units, with their ids."""
    if not connection.features.can_return_rows_from_bulk_insert:  # SQLite before 3.35
        return [WrittenUnit(pk=CodeUnit.objects.create(**row).pk, **row) for row in rows]
    limit = connection.features.max_query_params
    per_insert = limit // len(_FIELDS) if limit else _ROWS_PER_INSERT
    quote = connection.ops.quote_name
    head = (
        f"INSERT INTO {quote(CodeUnit._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in _FIELDS)}) VALUES "
    )
    tail = f" RETURNING {quote(CodeUnit._meta.pk.column)}"
    placeholders = f"({', '.join(['%s'] * len(_FIELDS))})"
    values_of = itemgetter(*(f.attname for f in _FIELDS))
    # JSON goes through the backend's own adapter (text on SQLite, a Jsonb value on PostgreSQL).
    json = [(n, f.encoder) for n, f in enumerate(_FIELDS) if isinstance(f, models.JSONField)]
    adapt = connection.ops.adapt_json_value
    written: list[WrittenUnit] = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_insert):
            batch = rows[start : start + per_insert]
            params: list[Any] = []
            for row in batch:
                values = list(values_of(row))
                for n, encoder in json:
                    values[n] = adapt(values[n], encoder)
                params += values
            cursor.execute(head + ", ".join([placeholders] * len(batch)) + tail, params)
            ids = [pk for (pk,) in cursor.fetchall()]
            written += (WrittenUnit(pk=pk, **row) for pk, row in zip(ids, batch, strict=True))
    return written
