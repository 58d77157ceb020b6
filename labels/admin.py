from django.contrib import admin

from labels.models import LabelRun


@admin.register(LabelRun)
class LabelRunAdmin(admin.ModelAdmin):
    list_display = (
        "repository",
        "status",
        "progress",
        "positives",
        "pair_errors",
        "executable",
        "method",
        "model",
        "updated_at",
    )
    list_filter = ("status", "method")
    search_fields = ("repository__name", "out_dir")
    readonly_fields = [f.name for f in LabelRun._meta.fields]

    @admin.display(description="pairs")
    def progress(self, run):
        return f"{run.pairs_done}/{run.pairs_total}"

    @admin.display(description="tests executable")
    def executable(self, run):
        return f"{run.tests_executable}/{run.tests_run}" if run.tests_run else "-"

    def has_add_permission(self, request):
        return False  # runs are started by `reporift label`
