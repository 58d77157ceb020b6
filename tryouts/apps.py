from django.apps import AppConfig


class TryoutsConfig(AppConfig):
    """Run what you found: an LLM-written example of a found unit, run in the sandbox."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "tryouts"
    verbose_name = "Examples run from found code"
