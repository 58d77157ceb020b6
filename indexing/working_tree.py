"""A local working tree that an agent edits, searched with no setup: `reporift search --path DIR`
and `reporift mcp --path DIR`.

The tree becomes a private repository named after its folder and a hash of its absolute path.
Every call first compares the tree's fingerprint (each indexed file's path, size and mtime: a
directory walk, and the reads by which the file selection tells what it takes, a file's first 8 KB
and a JavaScript, CSS or JSON file whole) with the one indexed last; when it differs, an index run
brings the index up to date, and that run is incremental like any other (only files whose bytes
changed are parsed and embedded). The first call indexes everything: phase 1 (static vectors) makes
it searchable, phase 2 follows as the caller chooses: `search --path` answers and exits, leaving
phase 2 to a detached process (`phase2_detached`) that outlives it; a later call that finds phase 2
still waiting (that process killed, the machine restarted) starts another.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Literal

from django.conf import settings
from django.utils.text import slugify

from indexing.file_selection import iter_source_files
from indexing.models import IndexRun, Repository
from indexing.phase2 import execute as phase2_execute
from indexing.phase2 import waiting
from indexing.services import (
    IndexingError,
    index_run_execute,
    index_run_start,
    phase2_start,
    repository_create,
)

_refresh_lock = threading.Lock()


def working_tree_repository(*, path: str | Path) -> Repository:
    """The repository of the working tree at `path`, created on first use."""
    root = Path(path).expanduser().resolve()
    if not root.is_dir():
        raise IndexingError(f"not a directory: {path}")
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:8]
    name = f"tree-{slugify(root.name)[:60] or 'root'}-{digest}"
    repository = Repository.objects.filter(name=name).first()
    if repository is None:
        repository = repository_create(
            name=name,
            source=str(root),
            source_kind=Repository.SourceKind.LOCAL,
            is_public=False,
        )
    return repository


def fingerprint(root: Path) -> str:
    """What changes when an indexed file is edited, added or deleted (size and mtime in ns):
    the files an index run takes (`indexing.file_selection`, .gitignore honoured)."""
    digest = hashlib.sha256()
    conf = settings.REPORIFT
    for entry in iter_source_files(
        root,
        max_file_bytes=conf["MAX_FILE_BYTES"],
        max_files=conf["MAX_FILES"],
        warnings=[],
        gitignore=True,
    ):
        stat = entry.absolute.stat()
        digest.update(f"{entry.path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def refresh(
    repository: Repository, *, phase2: Literal["now", "background", "later"] = "background"
) -> IndexRun | None:
    """Bring the tree's index up to date; the run that did, or None when nothing changed. A
    phase 2 left pending (a process that stopped before it) is started again."""
    with _refresh_lock:
        seen = _state_file(repository)
        current = fingerprint(Path(repository.source))
        repository.refresh_from_db()
        run = None
        if repository.active_run_id is None or _read(seen) != current:
            run = index_run_execute(
                run=index_run_start(repository=repository, enqueue=False), phase2="later"
            )
            if run.status != IndexRun.Status.SUCCEEDED:
                raise IndexingError(f"indexing {repository.source} failed: {run.error}")
            seen.write_text(json.dumps({"fingerprint": current}))
            repository.refresh_from_db()
        active = repository.active_run
        if active is not None and waiting(active):
            if phase2 == "background":
                phase2_start(run=active)
            elif phase2 == "now":
                phase2_execute(run_id=active.pk)
        return run


def phase2_detached(repository: Repository) -> IndexRun | None:
    """Start the active run's phase 2 in a process of its own, unless none is waiting (done, or
    a live process has it: its heartbeat is fresh); the run it started, or None. Two callers
    racing here start two processes, and the phase's claim lets one of them work."""
    repository.refresh_from_db()
    active = repository.active_run
    if active is None or not waiting(active):
        return None
    _spawn(["phase2", repository.name])
    return active


def _spawn(arguments: list[str]) -> None:
    """`reporift ARGUMENTS` in a new session (a terminal's Ctrl-C or closing does not reach it),
    its output in the data dir's logs."""
    logs = Path(settings.DATA_DIR) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "phase2.log", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "reporift.cli", *arguments],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=settings.BASE_DIR,  # `-m` puts the folder first on sys.path: not the tree's
        )


def _state_file(repository: Repository) -> Path:
    directory = Path(settings.DATA_DIR) / "working-trees"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{repository.name}.json"


def _read(path: Path) -> str:
    try:
        return json.loads(path.read_text())["fingerprint"]
    except (OSError, ValueError, KeyError):
        return ""


def open_working_tree(
    *, path: str | Path, phase2: Literal["now", "background", "later"]
) -> tuple[Repository, IndexRun | None]:
    """What `search --path` and `mcp --path` do first, with no setup beyond the defaults: the
    database migrated, the tree's repository, its index brought up to date (and the run that
    did it, if one had to)."""
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    repository = working_tree_repository(path=path)
    return repository, refresh(repository, phase2=phase2)
