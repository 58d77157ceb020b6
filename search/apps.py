from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from indexing.signals import background_work
        from search.ranking.word_packs import on_background_work

        background_work.connect(on_background_work, dispatch_uid="search.word_packs")
