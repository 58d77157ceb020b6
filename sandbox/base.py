"""The sandbox seam: what a run may use (`Limits`), what came of it (`Execution`), and the
Protocol every isolation backend implements (`tests/sandbox/` holds the contract they pass)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

# Files a read-only copy of a repository leaves out: history, caches, and anything too large to
# be source a test would import.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv"})
MAX_COPIED_FILE_BYTES = 2 * 1024 * 1024


class SandboxUnavailable(RuntimeError):
    """The configured isolation tool is missing or cannot start: nothing was run."""


@dataclass(frozen=True)
class Limits:
    cpu_s: int = 10
    wall_s: float = 20.0
    memory_mb: int = 1024
    file_size_mb: int = 16
    processes: int = 32
    output_chars: int = 20_000  # of stdout and of stderr each, kept for the trail


@dataclass
class Execution:
    """`status`: "passed" (exit 0), "failed" (another exit status), or "stopped" (a limit
    ended it: `limit` names which)."""

    status: str
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    limit: str = ""  # "wall-clock", "cpu time", "memory", "processes", "file size"
    backend: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def as_dict(self) -> dict:
        return asdict(self)


@runtime_checkable
class Sandbox(Protocol):
    name: str

    def unavailable_reason(self) -> str | None:
        """Why this backend cannot run anything here (None when it can)."""
        ...

    def run(self, program: str, *, code_dir: Path | None = None, limits: Limits) -> Execution:
        """Run `program` (Python source) as `main.py` in a fresh working directory, with a
        read-only copy of `code_dir` importable (on PYTHONPATH) when given; no network.
        Raises SandboxUnavailable when nothing could be run."""
        ...


def copy_code(source: Path, target: Path) -> None:
    """A copy of a checkout for a sandbox to read: no VCS history, caches or huge files."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIPPED_DIRS}
        for name in names:
            path = Path(directory) / name
            if path.is_symlink() or (
                path.is_file() and path.stat().st_size > MAX_COPIED_FILE_BYTES
            ):
                skipped.add(name)
        return skipped

    shutil.copytree(source, target, ignore=ignore, symlinks=False)
    # Readable by the sandbox's own uid whatever the source's modes were (a temporary
    # directory is 0700).
    for path in (target, *target.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)


@contextlib.contextmanager
def prepared(
    sandbox: Sandbox, program: str, code_dir: Path | None
) -> Iterator[tuple[Path, Path, Path | None]]:
    """A throwaway (scratch, working directory holding main.py, read-only code copy or None)
    for one run, refused before anything is written when the backend cannot run here."""
    reason = sandbox.unavailable_reason()
    if reason:
        raise SandboxUnavailable(reason)
    with tempfile.TemporaryDirectory(prefix="reporift-sandbox-") as tmp:
        scratch = Path(tmp)
        work = scratch / "work"
        work.mkdir()
        (work / "main.py").write_text(program, encoding="utf-8")
        code = None
        if code_dir is not None:
            code = scratch / "code"
            copy_code(Path(code_dir), code)
        yield scratch, work, code


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters)"


def limit_from_outcome(returncode: int | None, stderr: str, timed_out: bool) -> str:
    """Which limit ended a run, read from how it ended (signals and Python's own errors)."""
    if timed_out:
        return "wall-clock"
    if returncode in (-24, 128 + 24, 152):  # SIGXCPU
        return "cpu time"
    if returncode in (-25, 128 + 25, 153) or "File too large" in stderr:  # SIGXFSZ / EFBIG
        return "file size"
    tail = stderr[-2000:]
    if "MemoryError" in tail or "Cannot allocate memory" in tail:
        return "memory"
    if "Resource temporarily unavailable" in tail or "BlockingIOError" in tail:
        return "processes"
    return ""
