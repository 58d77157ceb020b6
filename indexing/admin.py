from django.contrib import admin, messages

from indexing.embedding import serving_embedder
from indexing.models import CodeUnit, IndexRun, Repository
from indexing.selectors import indexed_with_another_embedder
from indexing.services import index_run_start, repository_delete
from indexing.sync import repository_sync


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "source_kind",
        "source",
        "owner",
        "is_public",
        "active_run",
        "embedder",
        "sync_every_minutes",
        "last_checked_at",
        "sync_state",
    )
    list_filter = ("source_kind", "is_public")
    search_fields = ("name", "source")
    raw_id_fields = ("owner", "active_run")
    readonly_fields = (
        "last_checked_at",
        "last_check_error",
        "sync_failures",
        "next_check_at",
        "exact_index",
    )
    exclude = ("webhook_secret",)  # shown once to its owner, never on an admin page
    actions = ("reindex", "sync_now", "delete_with_vectors")

    @admin.display(description="exact index")
    def exact_index(self, repository):
        """The lines exact search reads (indexing.exact_index), and their room on disk."""
        from django.template.defaultfilters import filesizeformat

        from indexing.exact_index import index_size

        size = index_size(repository_id=repository.pk)
        if size["bytes_on_disk"] < 0:
            return f"{size['chunks']:,} chunks, {size['text_chars']:,} characters"
        return (
            f"{size['chunks']:,} chunks, {size['text_chars']:,} characters, about "
            f"{filesizeformat(size['bytes_on_disk'])} on disk (all repositories: "
            f"{filesizeformat(size['all_bytes_on_disk'])})"
        )

    @admin.display(description="sync")
    def sync_state(self, repository):
        if repository.last_check_error:
            return f"FAILING ({repository.sync_failures}x): {repository.last_check_error[:120]}"
        return "ok" if repository.last_checked_at else "-"

    @admin.action(description="Sync selected repositories with their git remotes now")
    def sync_now(self, request, queryset):
        for repository in queryset:
            outcome = repository_sync(repository=repository, trigger="admin")
            self.message_user(request, f"{repository.name}: {outcome.state} {outcome.detail}")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("active_run")

    @admin.display(description="embedder")
    def embedder(self, repository):
        """Which model made the serving vectors; a repository of another model than the one
        serving needs re-indexing (its vector search finds nothing meanwhile)."""
        model_id, _ = serving_embedder()
        other = indexed_with_another_embedder(repository=repository, model_id=model_id)
        if other:
            return f"NEEDS RE-INDEX: made by {other}"
        return repository.active_run.embedder_model if repository.active_run else "-"

    @admin.action(description="Re-index selected repositories")
    def reindex(self, request, queryset):
        for repository in queryset:
            run = index_run_start(repository=repository)
            self.message_user(request, f"{repository.name}: {run.label} {run.status}")

    @admin.action(description="Delete selected repositories and their vectors")
    def delete_with_vectors(self, request, queryset):
        names = [r.name for r in queryset]
        for repository in queryset:
            repository_delete(repository=repository)
        self.message_user(request, f"deleted {', '.join(names)}", messages.SUCCESS)

    def delete_model(self, request, obj):
        repository_delete(repository=obj)

    def delete_queryset(self, request, queryset):
        for repository in queryset:
            repository_delete(repository=repository)

    def get_actions(self, request):
        actions = super().get_actions(request)
        # Django's bulk delete would leave the vectors behind in the store.
        actions.pop("delete_selected", None)
        return actions


@admin.register(IndexRun)
class IndexRunAdmin(admin.ModelAdmin):
    list_display = (
        "run",
        "repository",
        "status",
        "phase",
        "files_total",
        "files_reused",
        "units_embedded",
        "units_total",
        "files_with_errors",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "repository")
    exclude = ("file_versions",)
    readonly_fields = [
        f.name for f in IndexRun._meta.get_fields() if f.concrete and f.name != "file_versions"
    ]

    def has_add_permission(self, request):
        return False

    @admin.display(description="run", ordering="id")
    def run(self, run):
        return run.label


@admin.register(CodeUnit)
class CodeUnitAdmin(admin.ModelAdmin):
    list_display = ("qualname", "kind", "path", "start_line", "end_line", "repository")
    list_filter = ("kind", "repository")
    search_fields = ("qualname", "path")
    raw_id_fields = ("file_version", "repository")

    def has_add_permission(self, request):
        return False
