from django.db import migrations, models

# The trigram index over the chunks' text, in each engine's own kind (indexing.exact_index):
# SQLite's FTS5 table reads its text from the chunks' table (external content) and is kept in
# step by triggers; `detail=none` stores no positions, so a literal is looked up as the AND of
# its trigrams and RE2 checks the candidates. PostgreSQL's pg_trgm serves LIKE with a GIN index.
SQLITE = [
    "CREATE VIRTUAL TABLE indexing_exactchunk_fts USING fts5(text, "
    "content='indexing_exactchunk', content_rowid='id', tokenize='trigram', detail=none)",
    "CREATE TRIGGER indexing_exactchunk_ai AFTER INSERT ON indexing_exactchunk BEGIN "
    "INSERT INTO indexing_exactchunk_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER indexing_exactchunk_ad AFTER DELETE ON indexing_exactchunk BEGIN "
    "INSERT INTO indexing_exactchunk_fts(indexing_exactchunk_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); END",
    "CREATE TRIGGER indexing_exactchunk_au AFTER UPDATE ON indexing_exactchunk BEGIN "
    "INSERT INTO indexing_exactchunk_fts(indexing_exactchunk_fts, rowid, text) "
    "VALUES ('delete', old.id, old.text); "
    "INSERT INTO indexing_exactchunk_fts(rowid, text) VALUES (new.id, new.text); END",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS indexing_exactchunk_ai",
    "DROP TRIGGER IF EXISTS indexing_exactchunk_ad",
    "DROP TRIGGER IF EXISTS indexing_exactchunk_au",
    "DROP TABLE IF EXISTS indexing_exactchunk_fts",
]
POSTGRESQL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX indexing_exactchunk_trgm ON indexing_exactchunk USING gin (text gin_trgm_ops)",
]
POSTGRESQL_DROP = ["DROP INDEX IF EXISTS indexing_exactchunk_trgm"]


def _run(schema_editor, statements: dict[str, list[str]]) -> None:
    for statement in statements.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


def forwards(apps, schema_editor):
    _run(schema_editor, {"sqlite": SQLITE, "postgresql": POSTGRESQL})


def backwards(apps, schema_editor):
    _run(schema_editor, {"sqlite": SQLITE_DROP, "postgresql": POSTGRESQL_DROP})


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0015_unit_calls_left_out"),
    ]

    operations = [
        migrations.CreateModel(
            name="ExactChunk",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("first_line", models.PositiveIntegerField()),
                ("text", models.TextField()),
                (
                    "file_version",
                    models.ForeignKey(
                        on_delete=models.deletion.CASCADE,
                        related_name="exact_chunks",
                        to="indexing.fileversion",
                    ),
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
