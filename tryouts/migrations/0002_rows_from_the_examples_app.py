"""The app was called `examples` before; a database migrated under that name keeps its rows.

`0001` creates this app's table afresh (the migration history moved with the app, under its new
label), so an installation that ran the old app has its examples in `examples_unitexample`: they
are copied here, and the old table and its migration record go. A new installation has no such
table and nothing happens.
"""

from django.db import migrations

OLD_TABLE = "examples_unitexample"


def carry_rows_over(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    model = apps.get_model("tryouts", "UnitExample")
    quote = schema_editor.quote_name
    columns = ", ".join(quote(f.column) for f in model._meta.concrete_fields)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(model._meta.db_table)} ({columns}) "
            f"SELECT {columns} FROM {quote(OLD_TABLE)}"
        )
        cursor.execute(f"DROP TABLE {quote(OLD_TABLE)}")
        cursor.execute("DELETE FROM django_migrations WHERE app = %s", ["examples"])
        # New rows must not reuse a copied id: PostgreSQL's sequence does not follow inserts
        # that name their ids (SQLite takes the largest id by itself).
        for sql in connection.ops.sequence_reset_sql(no_style(), [model]):
            cursor.execute(sql)


def no_style():
    from django.core.management.color import no_style as plain

    return plain()


class Migration(migrations.Migration):
    dependencies = [("tryouts", "0001_unit_example")]

    operations = [migrations.RunPython(carry_rows_over, migrations.RunPython.noop)]
