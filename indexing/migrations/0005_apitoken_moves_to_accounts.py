"""ApiToken now lives in the `accounts` app (accounts 0001 adopted its table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0004_unit_context_and_vector_cache"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ApiToken")],
            database_operations=[],
        ),
    ]
