"""The first 60 queries of a process that has just started, on a repository already indexed in a
data dir, in three situations, each in a fresh process:

- `fresh`: a process that runs the warm-up a server runs (search.warmup) and then asks;
- `server`: `reporift serve` just started, asked over HTTP on 127.0.0.1 from its first answer on
  (how long it took to give one is `ready_s`);
- `indexed`: a process that warmed up, then indexed a small change (a new file) of the
  repository's source, phases 1 and 2, and then asks;
- `cold` (on request): a process that asks without any warm-up, as a one-shot command does.

In-process situations then ask the same 60 again with their query vectors forgotten
(`again_p50_ms`, `again_p95_ms`): the same process warmed by use, in the same minute.

    python -m benchmarks.first_queries --data-dir DIR --repository NAME --source DIR \\
        [--before WORKTREE] [--repeat 2] [--out docs/eval/first-queries.json]

With `--before`, every situation runs with that checkout's code too (a git worktree of an
earlier commit), alternating with this one's in the same run. The queries are 60 developer
questions (benchmarks/questions/dev) of the repository's packages (django, celery and kombu by
default), all different, so that no two share a cached query vector.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERIES = 60
SCENARIOS = ("fresh", "server", "indexed")
ALL_SCENARIOS = (*SCENARIOS, "cold")
PACKAGES = ("django", "celery", "kombu")
CHANGE_FILE = "first_queries_change.py"


def questions(packages=PACKAGES, n: int = QUERIES) -> list[str]:
    """`n` different developer questions, taken from the packages in turn."""
    lists = []
    for package in packages:
        path = ROOT / "benchmarks" / "questions" / "dev" / f"{package}.jsonl"
        lists.append([json.loads(line)["query"] for line in path.read_text().splitlines()])
    seen: dict[str, None] = {}
    for row in range(max(len(rows) for rows in lists)):
        for rows in lists:
            if row < len(rows):
                seen.setdefault(rows[row])
    return list(seen)[:n]


def percentiles(latencies: list[float]) -> dict:
    ordered = sorted(latencies)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[round(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
        "first_ms": round(latencies[0], 1),
    }


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _change(source: Path) -> None:
    """A new file with one function of a name never seen before: the index run's whole work is
    that file (and a new generation)."""
    stamp = time.time_ns()
    (source / CHANGE_FILE).write_text(
        f'def first_queries_change_{stamp}(value):\n    """Marks index run {stamp}."""\n'
        "    return value\n"
    )


def run_in_process(args) -> dict:
    """`fresh`, `indexed` or `cold` in this (new) process, with the code of `args.code`."""
    sys.path.insert(0, str(args.code))
    started = time.perf_counter()
    try:
        from reporift.commands import prepare
    except ImportError:  # where the commands lived before
        from reporift.cli import prepare

    prepare()
    from django.core.management import call_command

    from indexing.models import Repository
    from search.services import search

    repository = Repository.objects.get(name=args.repository)
    row: dict = {"rss_start_mb": _rss_mb()}
    if args.scenario != "cold":
        from search.warmup import warm_up

        warm_up()
        row["warm_up_s"] = round(time.perf_counter() - started, 2)
        row["rss_warm_mb"] = _rss_mb()
    if args.scenario == "indexed":
        _change(Path(args.source))
        t0 = time.perf_counter()
        with open(os.devnull, "w") as quiet:
            call_command("index_repo", str(args.source), name=args.repository, stdout=quiet)
        row["index_s"] = round(time.perf_counter() - t0, 2)
        repository.refresh_from_db()
    row["ready_s"] = round(time.perf_counter() - started, 2)
    latencies = []
    for query in questions():
        t0 = time.perf_counter()
        search(repository=repository, query=query, k=10)
        latencies.append((time.perf_counter() - t0) * 1000)
    row["rss_end_mb"] = _rss_mb()
    row["units"] = repository.active_run.units_total
    # The same queries once more, their vectors forgotten: the process's warmed latency, in
    # the same minute, for the first 60 to be read against.
    from indexing.embedding import query_vector

    query_vector.cache_clear()
    again = []
    for query in questions():
        t0 = time.perf_counter()
        search(repository=repository, query=query, k=10)
        again.append((time.perf_counter() - t0) * 1000)
    warmed = {f"again_{k}": v for k, v in percentiles(again).items() if k in ("p50_ms", "p95_ms")}
    return (
        row | percentiles(latencies) | warmed | {"latencies_ms": [round(ms, 1) for ms in latencies]}
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, timeout: float = 120) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return reply.read()


def run_server(args) -> dict:
    """`reporift serve` started with the code of `args.code`, asked over HTTP."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = os.environ | {"REPORIFT_SEARCH_RATE_PER_MINUTE": "100000", "PYTHONPATH": str(args.code)}
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "reporift.cli", "serve", "--bind", f"127.0.0.1:{port}"],
        cwd=args.code,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:  # the first answer of any kind: the server takes requests
            try:
                _get(f"{base}/api/repos")
                break
            except OSError:
                if server.poll() is not None or time.perf_counter() - started > 600:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.05)
        row: dict = {"ready_s": round(time.perf_counter() - started, 2)}
        latencies = []
        for query in questions():
            params = urllib.parse.urlencode({"q": query, "repo": args.repository, "k": 10})
            t0 = time.perf_counter()
            try:
                body = json.loads(_get(f"{base}/api/search?{params}"))
            except urllib.error.HTTPError as exc:
                raise SystemExit(f"{exc} for {query!r}: {exc.read()[:300]!r}") from None
            latencies.append((time.perf_counter() - t0) * 1000)
            if not body.get("results"):
                raise SystemExit(f"no results over HTTP for {query!r}: {body}")
        row["rss_end_mb"] = _server_rss_mb(server.pid)
        return row | percentiles(latencies) | {"latencies_ms": [round(ms, 1) for ms in latencies]}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def _server_rss_mb(pid: int) -> float:
    """Resident memory of the server's processes (gunicorn's arbiter and its worker)."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
            if int(fields["Tgid"]) == pid or int(fields["PPid"]) == pid:
                total += int(fields.get("VmRSS", "0 kB").split()[0])
        except (OSError, KeyError, ValueError):
            continue
    return round(total / 1024, 1)


def _one(args, *, code: Path, scenario: str) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--scenario", scenario]
    command += ["--code", str(code), "--data-dir", str(Path(args.data_dir).resolve())]
    command += ["--repository", args.repository, "--source", str(Path(args.source).resolve())]
    done = subprocess.run(
        command,
        cwd=code,
        env=os.environ | {"REPORIFT_DATA_DIR": str(Path(args.data_dir).resolve())},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{scenario} with {code} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _commit(code: Path) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=code, capture_output=True, text=True
    )
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--repository", required=True)
    parser.add_argument("--source", required=True, help="the repository's source (`indexed`)")
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--after", type=Path, default=ROOT, help="the code measured (this one)")
    parser.add_argument("--scenarios", nargs="+", choices=ALL_SCENARIOS, default=SCENARIOS)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "eval" / "first-queries.json"))
    parser.add_argument("--scenario", choices=ALL_SCENARIOS, help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scenario:
        os.environ["REPORIFT_DATA_DIR"] = str(Path(args.data_dir).resolve())
        runner = run_server if args.scenario == "server" else run_in_process
        print(json.dumps(runner(args)))
        return
    versions = {"after": args.after.resolve()} | (
        {"before": args.before.resolve()} if args.before else {}
    )
    rows = []
    for repeat in range(args.repeat):
        for scenario in args.scenarios:
            for version, code in sorted(versions.items(), reverse=repeat % 2 == 1):
                row = {"scenario": scenario, "version": version, "commit": _commit(code)}
                row |= _one(args, code=code, scenario=scenario)
                rows.append(row)
                print({k: v for k, v in row.items() if k != "latencies_ms"}, flush=True)
    report = {
        "repository": args.repository,
        "date": time.strftime("%Y-%m-%d"),
        "queries": questions(),
        "runs": rows,
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
