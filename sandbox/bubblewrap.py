"""The default sandbox: bubblewrap (Debian's `bubblewrap` package), chosen over hand-written
namespace code because it is small, audited, used by Flatpak, and needs no daemon.

A run sees a new root holding only /usr, the Python installation this process runs on (read
only), its working directory and, when given, a read-only copy of the code; it has its own
network namespace with nothing in it, its own PID, IPC and UTS namespaces, and dies with its
parent. Started as root, bubblewrap sets the namespaces up and `setpriv` then drops the program
to an unprivileged uid of its own with no capabilities: the kernel does not enforce the process
limit for root, and a uid per run keeps concurrent runs from sharing one count. Started as
another user, bubblewrap uses an unprivileged user namespace instead.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from sandbox.base import Execution, Limits, prepared
from sandbox.process import execute, prlimit_prefix

WORK, CODE = "/sandbox/work", "/sandbox/code"
UID_RANGE = (200_000, 265_535)
TMPFS_BYTES = 64 * 1024 * 1024


def _dirs_then_bind(path: str, option: str) -> list[str]:
    """Create `path`'s parents world-traversable (bubblewrap makes them 0700 otherwise), then
    bind it."""
    args: list[str] = []
    parents = list(Path(path).parents)[:-1][::-1]  # /a, /a/b (not "/")
    for parent in parents:
        args += ["--perms", "0755", "--dir", str(parent)]
    return [*args, option, path, path]


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
        self.python = python or sys.executable

    def unavailable_reason(self) -> str | None:
        return _probe(self.bwrap)

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
        for prefix in sorted({sys.base_prefix, sys.prefix}):
            if not prefix.startswith("/usr/"):
                argv += _dirs_then_bind(prefix, "--ro-bind")
        argv += ["--proc", "/proc", "--dev", "/dev"]
        argv += ["--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
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
