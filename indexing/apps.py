from django.apps import AppConfig


class IndexingConfig(AppConfig):
    name = "indexing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.urls import register_converter

        from indexing.repository_names import RepositoryNameConverter

        # Before any URLconf is read: `<repo:name>` reaches every name a repository may have.
        register_converter(RepositoryNameConverter, "repo")
