"""API tokens: created with a secret shown once, stored as a SHA-256 hash, revocable, with an
optional expiry."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from django.utils import timezone

from accounts.models import ApiToken

PREFIX = "rr_"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_create(
    *, user, name: str, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    key = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:100], key_hash=_hash(key), prefix=key[:8], expires_at=expires_at
    )
    return token, key


def api_token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoked at once and for good; revoking twice keeps the first time."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def user_for_api_token(key: str):
    """The active user behind an active token, or None (unknown, revoked or expired token, or
    a deactivated user). Records the token's last use."""
    if not key or not key.startswith(PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=_hash(key)).first()
    if token is None or not token.is_active or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
