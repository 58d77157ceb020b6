"""Pluggable backends chosen from settings by dotted path (NetBox-style registry).

A backend setting is `{"CLASS": "package.module.Class", "OPTIONS": {...}}`; the options are passed
as keyword arguments, so a deployment swaps a backend without touching code.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

T = TypeVar("T")


def build_backend(config: dict[str, Any]) -> Any:
    try:
        cls = import_string(config["CLASS"])
    except (KeyError, ImportError) as exc:
        raise ImproperlyConfigured(f"cannot load backend {config!r}: {exc}") from exc
    return cls(**config.get("OPTIONS", {}))


def once(build: Callable[[], T]) -> Callable[[], T]:
    """Build a backend once per process, thread-safely: `functools.cache` lets two threads that
    arrive together both build it, and some clients (Chroma's) break when created concurrently.
    A failed build is not remembered, so the next call tries again."""
    lock = threading.Lock()
    built: list[T] = []

    @functools.wraps(build)
    def get() -> T:
        if built:
            return built[0]
        with lock:
            if not built:
                built.append(build())
            return built[0]

    def cache_clear() -> None:
        with lock:
            built.clear()

    get.cache_clear = cache_clear  # type: ignore[attr-defined]
    get.is_built = lambda: bool(built)  # type: ignore[attr-defined]
    return get
