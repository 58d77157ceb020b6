"""An installation that ran the app under its old name (`examples`) keeps its rows."""

import importlib

import pytest
from django.apps import apps
from django.db import connection

carry = importlib.import_module("tryouts.migrations.0002_rows_from_the_examples_app")


@pytest.mark.django_db(transaction=True)
def test_rows_of_the_old_table_are_carried_over_and_the_old_table_dropped():
    from indexing.models import Repository
    from tryouts.models import UnitExample

    repository = Repository.objects.create(name="old", source_kind="path", source="/x")
    table = UnitExample._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE examples_unitexample AS SELECT * FROM {table} WHERE 1 = 0")
        cursor.execute(
            "INSERT INTO django_migrations (app, name, applied) "
            "VALUES ('examples', '0001_unit_example', CURRENT_TIMESTAMP)"
        )
    old = UnitExample(repository=repository, path="a.py", qualname="f", model="m", program="x")
    old.pk = 41
    old.save()
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO examples_unitexample SELECT * FROM {table}")
        cursor.execute(f"DELETE FROM {table}")

    with connection.schema_editor() as editor:
        carry.carry_rows_over(apps, editor)

    copied = UnitExample.objects.get()
    assert (copied.pk, copied.qualname, copied.program) == (41, "f", "x")
    assert "examples_unitexample" not in connection.introspection.table_names()
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM django_migrations WHERE app = 'examples'")
        assert cursor.fetchone()[0] == 0
    new = UnitExample.objects.create(repository=repository, path="b.py", qualname="g", model="m")
    assert new.pk > 41


@pytest.mark.django_db(transaction=True)
def test_a_new_installation_has_nothing_to_carry():
    with connection.schema_editor() as editor:
        carry.carry_rows_over(apps, editor)  # no old table: nothing happens
