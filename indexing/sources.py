"""Sources: bring a repository's files into a directory, pin what was fetched, refuse unsafe input.

A source never executes anything from the repository. Archives are checked member by member
before a byte is written (absolute paths, `..`, links, device files, member count, declared and
actual uncompressed size), so a hostile archive fails with a clear error and writes nothing
outside its own target directory.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Protocol, runtime_checkable

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "env",
        "node_modules",  # vendored: indexing.file_selection counts what it skips there
        "build",
        "dist",
        "site-packages",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".eggs",
        ".ruff_cache",
        ".next",
        ".nuxt",
        ".gradle",
        ".terraform",
    }
)


_REDIRECT = re.compile(r"redirect|returned error: 30[12378]\b", re.I)


class SourceError(Exception):
    """The source cannot be fetched or is refused; the message is meant for the user."""


@dataclass(frozen=True)
class SourceLimits:
    max_archive_files: int = 20_000
    max_archive_bytes: int = 500 * 1024 * 1024
    max_compression_ratio: float = 200.0
    max_file_bytes: int = 2 * 1024 * 1024
    git_timeout_s: int = 300


@dataclass
class FetchedSource:
    root: Path
    commit_sha: str = ""
    warnings: list[str] = field(default_factory=list)
    # A directory on disk is a working tree: what its .gitignore files ignore (environments,
    # build outputs, downloaded data) is no part of it. A clone or an archive has no such files.
    gitignore: bool = False


@runtime_checkable
class Source(Protocol):
    """Something that can put a repository's files in a directory."""

    def fetch(self, workdir: Path) -> FetchedSource: ...


@dataclass
class LocalDirectorySource:
    """A directory on the server's disk, indexed in place (never written to)."""

    path: Path

    def fetch(self, workdir: Path) -> FetchedSource:
        root = Path(self.path).expanduser().resolve()
        if not root.is_dir():
            raise SourceError(f"not a directory: {self.path}")
        return FetchedSource(root=root, commit_sha=_git_head(root), gitignore=True)


@dataclass
class GitSource:
    """`git clone` of a URL (https, ssh or file://), optionally at a branch, tag or commit.

    A URL that a user submitted (not the operator) is checked again on every fetch, since its
    host may resolve elsewhere today, and cloned with HTTP redirects off: a public URL that
    redirects to a private address would otherwise be followed."""

    url: str
    ref: str = ""
    limits: SourceLimits = field(default_factory=SourceLimits)
    user_submitted: bool = False

    def fetch(self, workdir: Path) -> FetchedSource:
        target = workdir / "checkout"
        if self.url.startswith("-") or self.ref.startswith("-"):
            raise SourceError("git URL and ref may not start with '-'")
        clone = ["clone", "--quiet", "--no-recurse-submodules"]
        if self.user_submitted:
            from indexing.git_urls import GitURLRefused, check_user_git_url

            try:
                check_user_git_url(self.url)
            except GitURLRefused as exc:
                raise SourceError(str(exc)) from exc
            clone = ["-c", "http.followRedirects=false", *clone]
        is_commit = len(self.ref) >= 7 and all(c in "0123456789abcdef" for c in self.ref.lower())
        if not is_commit:
            clone += ["--depth", "1"]
            if self.ref:
                clone += ["--branch", self.ref]
        self._git(*clone, "--", self.url, str(target))
        if is_commit:
            self._git("-C", str(target), "checkout", "--quiet", "--detach", self.ref)
        return FetchedSource(root=target, commit_sha=_git_head(target))

    def _git(self, *args: str) -> str:
        env = {
            **os.environ,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "echo",
            "GIT_LFS_SKIP_SMUDGE": "1",
        }
        try:
            done = subprocess.run(
                ["git", "-c", "core.symlinks=false", *args],
                capture_output=True,
                text=True,
                timeout=self.limits.git_timeout_s,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise SourceError(f"git timed out after {self.limits.git_timeout_s}s") from exc
        except FileNotFoundError as exc:
            raise SourceError("git is not installed on the server") from exc
        if done.returncode != 0:
            message = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
            command = next(a for a in args if not a.startswith("-") and "=" not in a)
            if _REDIRECT.search(message):
                message = f"the server answered with a redirect, which is not followed ({message})"
            raise SourceError(f"git {command} failed: {message}")
        return done.stdout


def _git_head(root: Path) -> str:
    if not (root / ".git").exists():
        return ""
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else ""


@dataclass
class ArchiveSource:
    """An uploaded `.zip`, `.tar.gz`/`.tgz` or `.tar` file."""

    path: Path
    limits: SourceLimits = field(default_factory=SourceLimits)

    def fetch(self, workdir: Path) -> FetchedSource:
        archive = Path(self.path)
        if not archive.is_file():
            raise SourceError(f"archive not found: {archive.name}")
        target = workdir / "archive"
        target.mkdir(parents=True, exist_ok=True)
        if zipfile.is_zipfile(archive):
            _extract_zip(archive, target, self.limits)
        elif tarfile.is_tarfile(archive):
            _extract_tar(archive, target, self.limits)
        else:
            raise SourceError(f"{archive.name} is not a zip or tar archive")
        return FetchedSource(root=_single_top_dir(target))


def _check_member_name(name: str) -> PurePosixPath:
    if not name or "\x00" in name:
        raise SourceError("archive member with an empty or invalid name")
    normalized = name.replace("\\", "/")
    pure = PurePosixPath(normalized)
    if pure.is_absolute() or normalized.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise SourceError(f"archive member has an absolute path: {name!r}")
    if ".." in pure.parts:
        raise SourceError(f"archive member escapes the target directory: {name!r}")
    return pure


class _Budget:
    def __init__(self, limits: SourceLimits, compressed_size: int) -> None:
        self.limits = limits
        self.compressed_size = max(compressed_size, 1)
        self.files = 0
        self.bytes = 0

    def add_file(self) -> None:
        self.files += 1
        if self.files > self.limits.max_archive_files:
            raise SourceError(
                f"archive has more than {self.limits.max_archive_files} files (limit)"
            )

    def add_bytes(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.limits.max_archive_bytes:
            raise SourceError(
                f"archive expands to more than {self.limits.max_archive_bytes} bytes (limit)"
            )
        if self.bytes > 1024 * 1024 and (
            self.bytes / self.compressed_size > self.limits.max_compression_ratio
        ):
            raise SourceError(
                "archive expands more than "
                f"{self.limits.max_compression_ratio:g} times its size (zip bomb?)"
            )


def _extract_zip(archive: Path, target: Path, limits: SourceLimits) -> None:
    budget = _Budget(limits, archive.stat().st_size)
    with zipfile.ZipFile(archive) as zf:
        members = zf.infolist()
        # Check every declared name, type and size before writing anything.
        for info in members:
            _check_member_name(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SourceError(f"archive contains a symbolic link: {info.filename!r}")
            if not info.is_dir():
                budget.add_file()
                budget.add_bytes(info.file_size)
        budget.bytes = 0  # the declared sizes passed; now count what is actually written
        for info in members:
            destination = target / _check_member_name(info.filename)
            if info.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(destination, "wb") as dst:
                while chunk := src.read(1 << 16):
                    budget.add_bytes(len(chunk))
                    dst.write(chunk)


def _extract_tar(archive: Path, target: Path, limits: SourceLimits) -> None:
    budget = _Budget(limits, archive.stat().st_size)
    try:
        with tarfile.open(archive) as tf:
            members = tf.getmembers()
            for member in members:
                _check_member_name(member.name)
                if member.issym() or member.islnk():
                    raise SourceError(f"archive contains a link: {member.name!r}")
                if not (member.isfile() or member.isdir()):
                    raise SourceError(f"archive contains a special file: {member.name!r}")
                if member.isfile():
                    budget.add_file()
                    budget.add_bytes(member.size)
            # The `data` filter re-checks all of the above as a second line of defence.
            tf.extractall(target, members=members, filter="data")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(f"cannot read archive: {exc}") from exc


def _single_top_dir(target: Path) -> Path:
    """GitHub-style archives wrap everything in one folder; index from inside it. A lone folder
    that is itself a package is kept, or its name would vanish from every path."""
    entries = [p for p in target.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "__init__.py").exists():
        return entries[0]
    return target


@dataclass(frozen=True)
class SourceFileEntry:
    path: str  # relative, POSIX separators
    absolute: Path
    size: int
