from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0016_exact_chunks"),
    ]

    operations = [
        migrations.AddField(
            model_name="indexrun",
            name="runner_host",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name="indexrun",
            name="runner_pid",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="indexrun",
            name="runner_started",
            field=models.CharField(blank=True, max_length=32),
        ),
    ]
