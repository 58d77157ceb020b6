"""Corpora of the other-language question sets: source packages unpacked from a registry (npm,
Debian, PyPI source distributions) or a public git repository at a pinned commit, named in a
manifest (`corpora.json` beside the rows' folder)
and found under a corpora folder (REPORIFT_CORPORA, by default the checkout's var/corpora).

A corpus lies at `<corpora>/<ecosystem>/<package>-<version>/<root>`. The manifest records the
corpus root's fingerprint (its file list and contents), so that rows whose paths and line
numbers were read off one unpacked copy are never scored against another. Needs no Django:
the peer benchmarks read corpora through it too.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from search.evaluation.dataset_types import DatasetError, read_json

MANIFEST_NAME = "corpora.json"
ECOSYSTEMS = ("npm", "debian", "pypi-sdist", "git")
DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "var" / "corpora"
FIELDS = ("ecosystem", "package", "version", "root", "language")


@dataclass(frozen=True)
class CorpusEntry:
    name: str
    ecosystem: str
    package: str
    version: str
    root: str  # inside the unpacked package
    language: str
    sha256: str = ""  # the root's fingerprint; empty until recorded
    files: int = 0

    def unpacked(self, corpora: Path) -> Path:
        """Where the package is unpacked (the exact version, a Debian epoch included; a git
        repository `owner/name` at its commit as `owner+name-<commit>`)."""
        package = self.package.replace("/", "+")
        return corpora / self.ecosystem / f"{package}-{self.version}"

    def directory(self, corpora: Path) -> Path:
        return self.unpacked(corpora) / self.root


def corpora_dir(value: str | Path | None = None) -> Path:
    chosen = value or os.environ.get("REPORIFT_CORPORA") or DEFAULT_CORPORA
    return Path(chosen).expanduser().resolve()


def read_manifest(path: Path) -> dict[str, CorpusEntry]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: expected an object of corpora by name")
    entries = {}
    for name, raw in data.items():
        if not isinstance(raw, dict) or any(not isinstance(raw.get(f), str) for f in FIELDS):
            raise DatasetError(f"{path}: corpus {name!r} needs {', '.join(FIELDS)}")
        if raw["ecosystem"] not in ECOSYSTEMS:
            raise DatasetError(f"{path}: corpus {name!r}: ecosystem must be one of {ECOSYSTEMS}")
        entries[name] = CorpusEntry(
            name=name,
            **{f: raw[f] for f in FIELDS},
            sha256=raw.get("sha256", ""),
            files=int(raw.get("files", 0)),
        )
    return entries


def find_manifest(rows_file: Path) -> Path:
    """The manifest beside the rows' file or one folder up (rows live in `dev/`, `train/`)."""
    for folder in (rows_file.parent, rows_file.parent.parent):
        if (folder / MANIFEST_NAME).is_file():
            return folder / MANIFEST_NAME
    raise DatasetError(f"{rows_file}: rows name a language but no {MANIFEST_NAME} is beside them")


def fingerprint(root: Path) -> tuple[str, int]:
    """sha256 over the root's sorted relative paths and each file's sha256 (a symlink by its
    target, not followed), and the number of regular files."""
    entries: list[tuple[str, str]] = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in [*names, *(d for d in dirs if (Path(folder) / d).is_symlink())]:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries.append((relative, "-> " + os.readlink(path)))
            elif path.is_file():
                entries.append((relative, hashlib.sha256(path.read_bytes()).hexdigest()))
    digest = hashlib.sha256()
    for relative, content in sorted(entries):
        digest.update(f"{relative}\0{content}\n".encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest(), sum(1 for _, c in entries if not c.startswith("-> "))


@cache
def _checked(directory: Path, expected: str) -> None:
    if not directory.is_dir():
        raise DatasetError(
            f"corpus folder {directory} is missing: `python -m benchmarks.corpora fetch` "
            "unpacks it (REPORIFT_CORPORA says where corpora lie)"
        )
    if expected:
        found, _ = fingerprint(directory)
        if found != expected:
            raise DatasetError(
                f"{directory} differs from the copy the rows were written against "
                f"(fingerprint {found[:12]}, manifest {expected[:12]}): fetch it again"
            )


def corpus_root(entry: CorpusEntry, corpora: Path) -> Path:
    """The corpus root, refused when absent or not the recorded copy."""
    directory = entry.directory(corpora).resolve()
    _checked(directory, entry.sha256)
    return directory
