from django.apps import AppConfig


class ExamplesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "examples"
    verbose_name = "Examples of found code"
