"""Bounded load test on loopback: gunicorn serving the app as `make run` does, N concurrent
clients for a fixed time against fast-mode search through the JSON API.

    python -m benchmarks.load [--clients 20] [--seconds 60] [--baseline DIR --rounds 2] \\
        [--out report.json]

With `--baseline` (a worktree of an older commit), that checkout is served the same way on the
same index in alternating rounds: the two builds compared in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.common import (
    ROOT,
    free_port,
    http_get,
    machine_line,
    package_dir,
    setup_django,
    short_commit,
)
from search.evaluation.metrics import percentile

QUERIES = [
    "retry failed http calls",
    "parse cookies from a header",
    "check if a url bypasses the proxy",
    "basic authentication",
    "stream a response body in chunks",
    "encode query parameters",
    "merge two dictionaries of settings",
    "guess the encoding of a response",
    "raise an error for bad status codes",
    "prepare the request body",
]
MAX_REQUESTS_PER_CLIENT = 100_000  # a bound besides the clock


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--baseline", type=Path, help="an older checkout, served in turn")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "eval" / "load.json")
    args = parser.parse_args()
    data_dir = setup_django()
    from django.core.management import call_command

    from indexing.models import Repository

    call_command("index_repo", str(package_dir("rich")), name="demo")
    units = Repository.objects.get(name="demo").active_run.units_total
    sides = {"this checkout": ROOT}
    if args.baseline:
        sides["baseline"] = args.baseline.resolve()
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for _ in range(args.rounds):
        for side, project in sides.items():
            runs[side].append(_serve_and_load(project, data_dir, args.clients, args.seconds))
            print(side, json.dumps(runs[side][-1]))
    summary = {side: _pooled(measured, args.seconds) for side, measured in runs.items()}
    report = {
        "machine": machine_line(),
        "command": " ".join(["python -m benchmarks.load", *sys.argv[1:]]),
        "units": units,
        "baseline_commit": short_commit(args.baseline) if args.baseline else "",
        "summary": summary,
        "rounds": runs,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(summary, indent=2))


def _serve_and_load(project: Path, data_dir: Path, clients: int, seconds: float) -> dict:
    """One round: gunicorn serving `project` as `make run` does, `clients` threads for
    `seconds`."""
    port = free_port()
    env = {
        **os.environ,
        "REPORIFT_DATA_DIR": str(data_dir),
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        "PYTHONPATH": str(project),
        # The per-user limit would (correctly) refuse one client's 120+ searches a minute.
        "REPORIFT_SEARCH_RATE_PER_MINUTE": "0",
    }
    gunicorn = "gunicorn reporift.wsgi:application --workers 1 --threads 8 --timeout 120"
    command = [sys.executable, "-m", *gunicorn.split(), "--log-level", "warning"]
    server = subprocess.Popen([*command, "--bind", f"127.0.0.1:{port}"], cwd=project, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{base}/api/repos")
        http_get(f"{base}/api/search?repo=demo&q=warm+up")
        latencies, errors = _run_clients(base, clients, seconds)
    finally:
        server.terminate()
        server.wait(timeout=30)
    total = len(latencies) + len(errors)
    return {
        "requests": total,
        "errors": len(errors),
        "error_examples": errors[:5],
        "throughput_rps": round(total / seconds, 2),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies, default=0.0), 1),
    }


def _pooled(rounds: list[dict], seconds: float) -> dict:
    """Requests and errors added over the rounds; rates and latencies as the rounds' medians."""
    middle = {k: statistics.median(r[k] for r in rounds) for k in ("p50_ms", "p95_ms", "p99_ms")}
    requests = sum(r["requests"] for r in rounds)
    return {
        "requests": requests,
        "errors": sum(r["errors"] for r in rounds),
        "throughput_rps": round(requests / (seconds * len(rounds)), 2),
        **middle,
        "max_ms": max(r["max_ms"] for r in rounds),
    }


def _wait_until_up(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            http_get(url, timeout=2)
            return
        except OSError:  # refused until gunicorn listens
            time.sleep(0.3)
    raise SystemExit("the server did not come up")


def _run_clients(base: str, clients: int, seconds: float) -> tuple[list[float], list[str]]:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(index: int) -> None:
        for n in range(MAX_REQUESTS_PER_CLIENT):
            if time.monotonic() >= stop_at:
                return
            query = QUERIES[(index + n) % len(QUERIES)].replace(" ", "+")
            start = time.perf_counter()
            try:
                http_get(f"{base}/api/search?repo=demo&q={query}&k=10")
                error = ""
            except Exception as exc:  # an HTTP error status too
                error = f"{type(exc).__name__}: {exc}"
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                (errors.append(error) if error else latencies.append(elapsed))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


if __name__ == "__main__":
    main()
