"""The default sandbox: bubblewrap (Debian's `bubblewrap` package), chosen over hand-written
namespace code because it is small, audited, used by Flatpak, and needs no daemon.

A run sees a new root holding only /usr, what its Python interpreter reads (read only, at the
paths it reads them by, wherever the venv and its installation live), its working directory and,
when given, a read-only copy of the code; it has its own network namespace with nothing in it,
its own PID, IPC and UTS namespaces, and dies with its parent. Started as root, bubblewrap sets
the namespaces up and `setpriv` then drops the program to an unprivileged uid of its own with no
capabilities: the kernel does not enforce the process limit for root, and a uid per run keeps
concurrent runs from sharing one count. Started as another user, bubblewrap uses an unprivileged
user namespace instead.
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from sandbox.base import Execution, Limits, SandboxUnavailable, prepared
from sandbox.process import execute, prlimit_prefix

WORK, CODE = "/sandbox/work", "/sandbox/code"
UID_RANGE = (200_000, 265_535)
TMPFS_BYTES = 64 * 1024 * 1024
# Shown in the new root as they are on this machine (bound or symlinked below): a Python, or
# the part of one, found under them needs no bind of its own.
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/sbin")
MAX_SYMLINK_HOPS = 40  # the kernel's own limit: a symlink loop is refused, not followed forever
# Asked of the interpreter itself, not of this process: the sandbox may be given another Python
# than the one RepoRift runs on. `-I` ignores this process's PYTHON* variables, as the
# sandbox's cleared environment does, so the answer holds inside it.
_LAYOUT_PROGRAM = (
    "import json, sys, sysconfig\n"
    "paths = sysconfig.get_paths()\n"
    "print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,"
    " *(paths[k] for k in ('stdlib', 'platstdlib', 'purelib', 'platlib') if k in paths)]))\n"
)


@dataclass(frozen=True)
class Interpreter:
    """What a Python reads to start: `dirs` (its venv, the installation the venv was made from,
    the standard library, site-packages) and `links`, the symlinks from the path it is started
    by to `executable`, the real file, as (link, what it points to)."""

    path: str
    dirs: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    executable: str


def _parents(path: str) -> list[str]:
    """Create `path`'s parents world-traversable (bubblewrap makes them 0700 otherwise)."""
    args: list[str] = []
    for parent in list(Path(path).parents)[:-1][::-1]:  # /a, /a/b (not "/")
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _dirs_then_bind(path: str, option: str) -> list[str]:
    return [*_parents(path), option, path, path]


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _shown(path: str, dirs: tuple[str, ...]) -> bool:
    return any(_within(path, root) for root in (*SYSTEM_DIRS, *dirs))


def _absolute(python: str) -> str:
    """The interpreter by an absolute path, symlinks kept: the sandbox starts in its own working
    directory, and a venv's Python finds its venv by the path it was started by."""
    if os.sep not in python:
        python = shutil.which(python) or python
    return os.path.abspath(python)


def _symlink_chain(path: str) -> tuple[tuple[tuple[str, str], ...], str]:
    links: list[tuple[str, str]] = []
    current = path
    for _ in range(MAX_SYMLINK_HOPS):
        if not os.path.islink(current):
            return tuple(links), current
        target = os.readlink(current)
        links.append((current, target))
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    raise SandboxUnavailable(f"the sandbox's Python {path}: too many levels of symbolic links")


def _outermost(paths: list[str]) -> tuple[str, ...]:
    """Existing directories not already shown by the root's system dirs or by one another, as
    few binds as cover them all. "/" is never bound: it would show the whole machine."""
    kept: list[str] = []
    for path in sorted({os.path.normpath(p) for p in paths if os.path.isdir(p)}):
        if path != "/" and not _shown(path, tuple(kept)):
            kept.append(path)
    return tuple(kept)


@functools.cache
def _locate(python: str) -> Interpreter:
    """Ask `python` where it lives (a trusted interpreter, run with a fixed program: nothing
    untrusted runs outside the sandbox). Each directory counts both as reported, the path it is
    read by, and resolved, where a symlink into it leads."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", _LAYOUT_PROGRAM],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"the sandbox's Python {python} cannot start: {exc}") from exc
    if done.returncode != 0:
        reason = done.stderr.strip()[-300:]
        raise SandboxUnavailable(f"the sandbox's Python {python} cannot start: {reason}")
    reported = [os.path.abspath(d) for d in json.loads(done.stdout)]
    links, executable = _symlink_chain(python)
    dirs = _outermost([p for d in reported for p in (d, os.path.realpath(d))])
    return Interpreter(path=python, dirs=dirs, links=links, executable=executable)


def _interpreter_binds(found: Interpreter) -> list[str]:
    """Read-only binds of `found`'s directories at the paths it reads them by (so a venv under
    /tmp, ~/.pyenv or /opt works wherever the project was cloned), and the links and the real
    executable where no directory bound already shows them."""
    args: list[str] = []
    for path in found.dirs:
        args += _dirs_then_bind(path, "--ro-bind")
    for link, target in found.links:
        if not _shown(link, found.dirs):
            args += [*_parents(link), "--symlink", target, link]
    if not _shown(found.executable, found.dirs):
        args += _dirs_then_bind(found.executable, "--ro-bind")
    return args


def _user_processes(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                continue
    return count


class BubblewrapSandbox:
    name = "bubblewrap"

    def __init__(self, *, bwrap: str = "bwrap", python: str = "") -> None:
        self.bwrap = bwrap
        self.python = _absolute(python or sys.executable)

    def unavailable_reason(self) -> str | None:
        reason = _probe(self.bwrap)
        if reason is None:
            try:
                _locate(self.python)
            except SandboxUnavailable as exc:
                reason = str(exc)
        return reason

    def run(self, program: str, *, code_dir: Path | None = None, limits: Limits) -> Execution:
        with prepared(self, program, code_dir) as (scratch, work, code):
            as_root = os.geteuid() == 0
            uid = random.randint(*UID_RANGE) if as_root else os.getuid()
            if as_root:
                for path in (work, *work.rglob("*")):
                    os.chown(path, uid, uid)
            processes = limits.processes + (0 if as_root else _user_processes(uid))
            argv = prlimit_prefix(limits, processes=processes) + self.command(
                work=work, code=code, uid=uid if as_root else None
            )
            return execute(argv, limits=limits, scratch=scratch, backend=self.name)

    def command(self, *, work: Path, code: Path | None, uid: int | None) -> list[str]:
        argv = [self.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        argv += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        argv += ["--hostname", "sandbox"]
        if uid is None:
            argv += ["--unshare-user"]
        argv += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin"):
            target = Path("/") / name
            if target.is_symlink():
                argv += ["--symlink", os.readlink(target), str(target)]
            elif target.is_dir():
                argv += ["--ro-bind", str(target), str(target)]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        argv += ["--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
        # After the tmpfs: a later mount hides what an earlier one put below it, and a venv
        # under /tmp (a clone made there) must stay visible on top of the sandbox's own /tmp.
        argv += _interpreter_binds(_locate(self.python))
        argv += ["--perms", "0755", "--dir", "/sandbox", "--bind", str(work), WORK]
        if code is not None:
            argv += ["--ro-bind", str(code), CODE]
        argv += ["--chdir", WORK, "--clearenv"]
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": WORK,
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONPATH": CODE if code is not None else "",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv += ["--"]
        if uid is not None:
            argv += ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
            argv += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        return [*argv, self.python, "-B", "main.py"]


@functools.cache
def _probe(bwrap: str) -> str | None:
    """Start one empty sandbox, once per process: an installed bubblewrap may still be unable
    to create namespaces (a container without the privilege, user namespaces turned off)."""
    path = shutil.which(bwrap)
    if path is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    if shutil.which("prlimit") is None or not Path("/usr/bin/setpriv").exists():
        return "util-linux's prlimit and setpriv are needed next to bubblewrap"
    argv = [path, "--unshare-net", "--unshare-pid", "--ro-bind", "/usr", "/usr"]
    argv += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]
    if os.geteuid() != 0:
        argv += ["--unshare-user"]
    try:
        done = subprocess.run(
            [*argv, "/usr/bin/true"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot start: {exc}"
    if done.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {done.stderr.strip()[:300]}"
    return None
