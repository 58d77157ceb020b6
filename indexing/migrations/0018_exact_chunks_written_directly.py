from django.db import migrations

# SQLite's trigram index is written by the code that writes the chunks (indexing.exact_index),
# one statement for many rows, instead of by a trigger per row: the same index at a third of the
# cost (6.6 MB of Go: 0.7-1.0 s against 2.1-3.0 s). Chunks are written once and never updated;
# the delete trigger stays, so that a deleted version's lines leave the index with it.
TRIGGERS = {
    "indexing_exactchunk_ai": "AFTER INSERT ON indexing_exactchunk BEGIN "
    "INSERT INTO indexing_exactchunk_fts(rowid, text) VALUES (new.id, new.text); END",
    "indexing_exactchunk_au": "AFTER UPDATE ON indexing_exactchunk BEGIN "
    "INSERT INTO indexing_exactchunk_fts(indexing_exactchunk_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); "
    "INSERT INTO indexing_exactchunk_fts(rowid, text) VALUES (new.id, new.text); END",
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for name in TRIGGERS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for name, body in TRIGGERS.items():
            schema_editor.execute(f"CREATE TRIGGER {name} {body}")


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0017_indexrun_runner"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
