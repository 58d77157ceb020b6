"""Which process runs an index run in itself, and whether that process is still there.

A run executed inline (the CLI, a search server without a broker) has one process doing all of
it. When that process is killed (SIGKILL, power loss), nothing marks the run failed, and the
next start of the same repository would wait for it until its heartbeat went stale. Recording
the process on the run lets the next start on the same host see at once that it is gone. A
process is named by its host, its pid and its start time (the kernel's, in clock ticks since
boot), so a pid reused by a later process is not taken for the first. Runs on Celery workers
are not marked: a chunk's work moves between workers, and their leases cover a lost worker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessMark:
    host: str
    pid: int
    started: str  # "" where the start time cannot be read (no /proc)


def _start_time(pid: int) -> str | None:
    """The process's start time from /proc (field 22 of its stat line), "" without /proc,
    None when there is no such process."""
    proc = Path("/proc")
    if not proc.is_dir():
        return ""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return ""
    # The command name (field 2) is in parentheses and may hold spaces: count after its end.
    return stat[stat.rindex(")") + 2 :].split()[19]


def this_process() -> ProcessMark:
    pid = os.getpid()
    return ProcessMark(host=socket.gethostname(), pid=pid, started=_start_time(pid) or "")


def is_gone(mark: ProcessMark) -> bool:
    """Whether the marked process has certainly ended: False for another host's process (it
    cannot be seen from here) and for one that is alive or whose state cannot be read."""
    if not mark.pid or mark.host != socket.gethostname():
        return False
    started = _start_time(mark.pid)
    if started is None:
        return True
    if started and mark.started:
        return started != mark.started  # the pid now names a later process
    try:
        os.kill(mark.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


class Interrupted(KeyboardInterrupt):
    """A stop asked by a signal other than SIGINT; a KeyboardInterrupt, so one handler serves
    Ctrl-C and a service manager's SIGTERM alike."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signal_name = signal.Signals(signum).name


@contextlib.contextmanager
def signals_interrupt(signums: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise `Interrupted` in the main thread, as Ctrl-C
    raises KeyboardInterrupt, so the code running there can record why it stopped. Outside the
    main thread (signal handlers cannot be set there) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise Interrupted(signum)

    previous = {signum: signal.signal(signum, interrupt) for signum in signums}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def interruption(exc: BaseException) -> str:
    """The words for how a run was stopped, for its error field."""
    if isinstance(exc, Interrupted):
        return f"interrupted by {exc.signal_name}"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C, SIGINT)"
    return f"stopped ({type(exc).__name__})"
