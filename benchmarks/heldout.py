"""The projects held out of every train and dev set, in any form. Their list is kept outside the
repository (the project's own held-out checks ask about them), so each trainer is given its path
(`--heldout`, `make ... HELDOUT=DIR`) and refuses or skips what it names."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path


def normalise(name: str) -> str:
    return re.sub(r"[-_.]", "", name.lower())


def read_list(path: Path) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}


def read_projects(path: Path) -> frozenset[str]:
    """The held-out project names of `path` (one a line, `#` comments), normalised."""
    return frozenset(normalise(name) for name in read_list(path))


def list_sha256(path: Path) -> str:
    """What a trainer's manifest records: which list its data was checked against."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_held_out(names: Iterable[str], projects: frozenset[str]) -> bool:
    """Whether any of `names` (an import package, its distribution, a corpus name, an owner/name)
    is a held-out project by its whole name, owner or name, ignoring case and `-_.`. Whole names
    only: `benchmarks.issue_sets.heldout_project` also matches a dash- or dot-separated part of
    a repository's name, which would take karlseguin/http.zig (a web server written in Zig) for
    the held-out Zig itself; the list names the Zig projects it holds out (zig, zls, zig-clap)."""
    keys = {normalise(part) for name in names for part in (name, *name.split("/"))}
    return bool(keys & projects)
