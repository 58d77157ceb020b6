from django.contrib import admin, messages

from accounts.models import ApiToken
from accounts.services import api_token_revoke


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "state", "created_at", "last_used_at", "expires_at")
    list_filter = ("revoked_at", "expires_at")
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("key_hash", "prefix", "created_at", "last_used_at", "revoked_at")
    raw_id_fields = ("user",)
    actions = ("revoke",)

    def has_add_permission(self, request) -> bool:
        return False  # a token's secret is shown once, to its user: create them on the site

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        for token in queryset:
            api_token_revoke(token=token)
        self.message_user(request, f"revoked {queryset.count()} token(s)", messages.SUCCESS)
