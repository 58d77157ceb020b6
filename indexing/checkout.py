"""A repository's active generation as files on disk, written from the index (the database),
never read from the source: what a sandbox imports when it runs found code (label tests,
execution-scored evaluation rows, examples of found code)."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from indexing.models import FileVersion, Repository


def package_prefix(repository: Repository, paths: list[str]) -> str:
    """A repository whose root is itself a package (it has an __init__.py, as the demo's
    `requests` does) is copied under its package name, so its relative imports work."""
    if "__init__.py" not in paths:
        return ""
    name = Path(repository.source.rstrip("/")).name
    if not name.isidentifier():
        name = re.sub(r"\W", "_", repository.name)
    return name


def module_of(path: str, prefix: str) -> str:
    parts = [p for p in ([prefix] if prefix else []) + path[: -len(".py")].split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def materialize(*, repository: Repository, target: Path) -> str:
    """Write the active generation's files (as indexed, from the database) under `target`;
    returns the package prefix the modules are found under."""
    versions = FileVersion.objects.filter(
        repository=repository, runs=repository.active_run_id
    ).only("path", "content")
    paths = [v.path for v in versions]
    prefix = package_prefix(repository, paths)
    for version in versions:
        destination = target / prefix / version.path
        if not destination.resolve().is_relative_to(target.resolve()):
            continue  # a stored path is relative and checked at indexing; never trust it here
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(zlib.decompress(bytes(version.content)))
    return prefix
