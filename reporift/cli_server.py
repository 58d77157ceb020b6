"""A warm process that answers `reporift search` for one data dir and configuration.

Why a server and not only lazier loading: measured on the 2-core machine, a one-shot search
spends about 0.5 s importing Django and the apps, 0.6 s in Django's checks, 1 to 1.6 s importing
Chroma, 0.8 s opening the embedder and more on the ranker and the lexical index, for a search
that itself takes 10 to 30 ms once they are loaded. Loading less would still leave Python,
Django, onnxruntime and Chroma to import on every call (well over a second here); a process
that keeps them loaded answers in the time of the search plus a socket round trip.

The first `reporift search` starts the server (detached, in its own session) and waits for it;
later ones connect to its unix socket, which lies in a folder only this user may enter, named
after a hash of the data dir and every setting that reaches the product through the
environment, so a different data dir or configuration gets a server of its own. The server
answers one call at a time, exits after `REPORIFT_CLI_SERVER_IDLE_S` seconds without one
(15 minutes by default), and exits instead of answering when a source file it loaded changed
since it started (the client then starts a new one). `REPORIFT_CLI_SERVER=0` keeps every
search in its own process.

The client half of this module imports nothing from Django: it is what every call pays for.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Environment variables that change what the product does (settings.py reads them).
CONFIGURATION = ("REPORIFT_", "DJANGO_", "DATABASE_URL", "CHROMA_", "OPENAI_", "CELERY_", "REDIS_")
DEFAULT_IDLE_S = 900.0
START_WAIT_S = 600.0  # a new data dir distils the static table first (about a minute here)


def enabled() -> bool:
    return os.environ.get("REPORIFT_CLI_SERVER", "1").strip().lower() not in ("0", "false", "no")


def socket_path() -> Path:
    # settings.DATA_DIR's rule, without importing the settings.
    data_dir = Path(os.environ.get("REPORIFT_DATA_DIR") or ROOT / "var").resolve()
    configuration = sorted((k, v) for k, v in os.environ.items() if k.startswith(CONFIGURATION))
    key = json.dumps([str(data_dir), sys.executable, str(ROOT), configuration])
    # Unix socket paths are limited to about 100 bytes: a short folder, not the data dir.
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"reporift-{os.getuid()}"
    return base / f"search-{hashlib.sha256(key.encode()).hexdigest()[:16]}.sock"


def _private_folder(path: Path) -> bool:
    """Whether `path` is a folder of this user's that nobody else may enter (created so)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=True)
    info = path.lstat()
    return path.is_dir() and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


# --- the client -----------------------------------------------------------------------------


def ask(argv: list[str]) -> int | None:
    """Run `reporift ARGV` in the server (started if absent): its exit code, its output
    printed here; None when no server could answer (the caller runs the command itself)."""
    path = socket_path()
    if not _private_folder(path.parent):
        return None
    request = {"argv": argv, "cwd": os.getcwd()}
    for _ in range(2):  # a second time after a server that found its code changed
        reply = _exchange(path, request)
        if reply is None:
            reply = _start_and_ask(path, request)
        if reply is None:
            return None
        if not reply.get("stale"):
            sys.stdout.write(reply["stdout"])
            sys.stdout.flush()
            sys.stderr.write(reply["stderr"])
            return int(reply["code"])
    return None


def _exchange(path: Path, request: dict) -> dict | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(2.0)
        connection.connect(str(path))
        connection.settimeout(None)  # a search --path may index for minutes
        connection.sendall(json.dumps(request).encode() + b"\n")
        connection.shutdown(socket.SHUT_WR)
        data = b"".join(iter(lambda: connection.recv(1 << 16), b""))
    except OSError:
        return None
    finally:
        connection.close()
    try:
        return json.loads(data)
    except ValueError:  # the server died mid-answer
        return None


def start(path: Path | None = None) -> subprocess.Popen | None:
    """Start a server for this configuration in the background, detached, and return at
    once (`reporift index` does, so that the first search after it finds one warm, with the
    new index loaded); a server already there is asked to exit first, since it warmed up
    before this index existed. None where no private folder can hold its socket."""
    path = path or socket_path()
    if not _private_folder(path.parent):
        return None
    stop(path)
    logs = Path(os.environ.get("REPORIFT_DATA_DIR") or ROOT / "var").resolve() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "cli-server.log", "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "reporift.cli_server", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,  # `-m` puts the folder first on sys.path: never a searched project's
        )


def _start_and_ask(path: Path, request: dict) -> dict | None:
    server = start(path)
    if server is None:
        return None
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        reply = _exchange(path, request) if path.exists() else None
        if reply is not None:
            return reply
        if server.poll() is not None and not path.exists():
            return None  # it failed (its log says why), and no other server took its place
        time.sleep(0.05)
    return None


def wait_ready(path: Path | None = None, *, timeout_s: float = START_WAIT_S) -> bool:
    """Wait until the server answers (it accepts only once it has warmed up); whether it did."""
    path = path or socket_path()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and _exchange(path, {"ping": True}) is not None:
            return True
        time.sleep(0.05)
    return False


def stop(path: Path | None = None) -> bool:
    """Ask the server to exit; whether one was there."""
    return _exchange(path or socket_path(), {"stop": True}) is not None


# --- the server -----------------------------------------------------------------------------


def serve(path: Path, *, idle_s: float) -> None:
    lock = open(path.with_suffix(".lock"), "a")  # noqa: SIM115  (held until the process ends)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # another server for this socket is starting or running
    from reporift.commands import prepare, run_command
    from search.warmup import warm_up

    prepare()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path.unlink(missing_ok=True)
    listener.bind(str(path))
    listener.listen(64)
    try:
        # Everything a search touches, before the first answer: its first searches are then as
        # fast as its later ones (callers meanwhile wait in the listener's queue).
        warm_up()
        sources = _loaded_sources()
        listener.settimeout(idle_s)
        while True:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                return
            with connection:
                request = json.loads(connection.makefile("rb").readline())
                if request.get("ping"):
                    connection.sendall(json.dumps({"ready": True}).encode())
                    continue
                if request.get("stop") or _changed(sources):
                    connection.sendall(json.dumps({"stale": True}).encode())
                    return
                reply = _answer(request, run_command)
                connection.sendall(json.dumps(reply).encode())
    finally:
        path.unlink(missing_ok=True)
        listener.close()


def _answer(request: dict, run_command) -> dict:
    from django.db import close_old_connections

    out, err, code = io.StringIO(), io.StringIO(), 0
    close_old_connections()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            os.chdir(request["cwd"])
            run_command(request["argv"])
        except SystemExit as exc:  # argparse's --help and errors, a CommandError's exit
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                err.write(exc.code + "\n")
        except Exception as exc:  # reported to the caller; the server keeps serving
            err.write(f"reporift: {type(exc).__name__}: {exc}\n")
            code = 1
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def _loaded_sources() -> dict[str, int]:
    """The project's source files this process loaded, with their modification times."""
    found = {}
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if name and name.startswith(str(ROOT)) and "/.venv/" not in name:
            with contextlib.suppress(OSError):
                found[name] = os.stat(name).st_mtime_ns
    return found


def _changed(sources: dict[str, int]) -> bool:
    for name, mtime in sources.items():
        try:
            if os.stat(name).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


if __name__ == "__main__":
    idle = float(os.environ.get("REPORIFT_CLI_SERVER_IDLE_S") or DEFAULT_IDLE_S)
    serve(Path(sys.argv[1]), idle_s=idle)
