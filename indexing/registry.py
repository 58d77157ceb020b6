"""Pluggable backends chosen from settings by dotted path (NetBox-style registry).

A backend setting is `{"CLASS": "package.module.Class", "OPTIONS": {...}}`; the options are passed
as keyword arguments, so a deployment swaps a backend without touching code.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string


def build_backend(config: dict[str, Any]) -> Any:
    try:
        cls = import_string(config["CLASS"])
    except (KeyError, ImportError) as exc:
        raise ImproperlyConfigured(f"cannot load backend {config!r}: {exc}") from exc
    return cls(**config.get("OPTIONS", {}))
