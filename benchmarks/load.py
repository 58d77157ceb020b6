"""Bounded load test on loopback: gunicorn serving the app as `make run` does, N concurrent
clients for a fixed time against fast-mode search through the JSON API.

    python -m benchmarks.load [--clients 20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from benchmarks.common import ROOT, machine_line, package_dir, setup_django, write_section
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    data_dir = setup_django()
    from django.core.management import call_command

    call_command("index_repo", str(package_dir("requests")), name="demo")
    units = _units("demo")
    port = free_port()
    env = {
        **os.environ,
        "REPORIFT_DATA_DIR": str(data_dir),
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        # The per-user limit would (correctly) refuse one client's 120+ searches a minute.
        "REPORIFT_SEARCH_RATE_PER_MINUTE": "0",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "reporift.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--threads",
            "8",
            "--timeout",
            "120",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{base}/api/repos")
        _get(f"{base}/api/search?repo=demo&q=warm+up")
        latencies, errors = _run_clients(base, args.clients, args.seconds)
    finally:
        server.terminate()
        server.wait(timeout=30)
    total = len(latencies) + len(errors)
    summary = {
        "requests": total,
        "errors": len(errors),
        "throughput_rps": total / args.seconds,
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "p99_ms": percentile(latencies, 99),
        "max_ms": max(latencies, default=0.0),
    }
    print(json.dumps(summary, indent=2), errors[:5])
    write_section(
        "load",
        "\n".join(
            [
                "## Load: fast-mode search under concurrency",
                "",
                f"Machine: {machine_line()}. Command: `python -m benchmarks.load "
                f"--clients {args.clients} --seconds {args.seconds:g}` (part of `make bench`). "
                "gunicorn as `make run` starts it (1 worker, 8 threads), embedded SQLite and "
                f"Chroma, demo repository `requests` ({units} units), "
                "`GET /api/search?k=10&mode=fast` with 10 rotating queries, "
                f"{args.clients} client threads on loopback for {args.seconds:g} s; the per-user "
                "rate limit is off for the run (it would refuse one client past 120/min).",
                "",
                "| requests | errors | throughput | p50 | p95 | p99 | max |",
                "| --- | --- | --- | --- | --- | --- | --- |",
                f"| {total} | {len(errors)} | {summary['throughput_rps']:.1f} req/s | "
                f"{summary['p50_ms']:.0f} ms | {summary['p95_ms']:.0f} ms "
                f"| {summary['p99_ms']:.0f} ms | {summary['max_ms']:.0f} ms |",
                "",
                "Latency here is queueing plus work: with 20 clients on 2 cores a request waits "
                "for the others; single-request latency is in the search latency section.",
            ]
        ),
    )


def _units(name: str) -> int:
    from indexing.models import Repository

    return Repository.objects.get(name=name).active_run.units_total


def _get(url: str, timeout: float = 60) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        response.read()
        return response.status


def _wait_until_up(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            _get(url, timeout=2)
            return
        except (urllib.error.URLError, ConnectionError):
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
                status = _get(f"{base}/api/search?repo=demo&q={query}&k=10")
                error = "" if status == 200 else f"HTTP {status}"
            except Exception as exc:
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
