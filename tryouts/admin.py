from django.contrib import admin

from tryouts.models import UnitExample


@admin.register(UnitExample)
class UnitExampleAdmin(admin.ModelAdmin):
    list_display = ("qualname", "repository", "path", "status", "model", "created_at")
    list_filter = ("status", "model", "repository")
    search_fields = ("qualname", "path")
    readonly_fields = [f.name for f in UnitExample._meta.fields]
