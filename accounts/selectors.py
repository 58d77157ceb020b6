from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import ApiToken


def tokens_of(*, user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def token_of(*, user, token_id: int) -> ApiToken | None:
    """One of the user's own tokens; None for anyone else's (never revealed)."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()
