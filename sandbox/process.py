"""Running one sandbox command to its end or its wall-clock limit, whatever the backend.

Output goes to files rather than pipes: the file-size limit then also bounds what a program can
print, so a program that prints without end cannot fill this process's memory."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.base import Execution, Limits, clip, limit_from_outcome


def prlimit_prefix(limits: Limits, *, processes: int) -> list[str]:
    """util-linux `prlimit`: the limits are set on the command before it starts, and every
    process it starts inherits them (unlike a preexec hook, safe in a threaded caller)."""
    mb = 1024 * 1024
    return [
        "prlimit",
        f"--as={limits.memory_mb * mb}",
        # SIGXCPU at the soft limit (reported as such), SIGKILL a second later.
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
        f"--fsize={limits.file_size_mb * mb}",
        f"--nproc={processes}",
        "--core=0",
        "--",
    ]


def execute(
    argv: list[str],
    *,
    limits: Limits,
    scratch: Path,
    backend: str,
    on_timeout: Callable[[], None] | None = None,
) -> Execution:
    out_path, err_path = scratch / "stdout", scratch / "stderr"
    started = time.perf_counter()
    timed_out = False
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
        try:
            proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            if on_timeout is not None:
                on_timeout()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    duration = time.perf_counter() - started
    stdout = out_path.read_bytes()[: limits.output_chars * 4].decode("utf-8", "replace")
    stderr = err_path.read_bytes()[-limits.output_chars * 4 :].decode("utf-8", "replace")
    code = None if timed_out else proc.returncode
    limit = "" if code == 0 else limit_from_outcome(code, stderr, timed_out)
    status = "passed" if code == 0 else "stopped" if limit else "failed"
    return Execution(
        status=status,
        exit_code=code,
        stdout=clip(stdout, limits.output_chars),
        stderr=clip(stderr, limits.output_chars),
        duration_s=round(duration, 3),
        limit=limit,
        backend=backend,
    )
