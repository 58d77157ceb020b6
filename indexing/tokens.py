"""API tokens: created with a secret shown once, stored as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets

from django.utils import timezone

from indexing.models import ApiToken

PREFIX = "rr_"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    key = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, key_hash=_hash(key), prefix=key[:8])
    return token, key


def user_for_api_token(key: str):
    if not key or not key.startswith(PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=_hash(key)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
