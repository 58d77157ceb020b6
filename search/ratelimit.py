"""A fixed-window request limit per user (or per client address for anonymous callers), kept in
Django's cache: in-process by default, shared through Redis when REDIS_URL is set."""

from __future__ import annotations

import time

from django.core.cache import cache


def client_key(request, user) -> str:
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{request.META.get('REMOTE_ADDR', '?')}"


def allow(scope: str, key: str, *, per_minute: int) -> tuple[bool, int]:
    """(allowed, seconds until the window resets). `per_minute` 0 disables the limit."""
    if per_minute <= 0:
        return True, 0
    window = int(time.time() // 60)
    cache_key = f"ratelimit:{scope}:{key}:{window}"
    cache.add(cache_key, 0, timeout=90)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=90)
        count = 1
    return count <= per_minute, 60 - int(time.time()) % 60
