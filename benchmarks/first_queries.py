"""The first 60 queries of a process that has just started: answered cold (models, stores and
the vectors' in-memory copy loaded by the queries themselves, as a one-shot process does), or
after the warm-up a server runs before it takes requests (search.warmup, waiting for the
copies). Each scenario runs in a fresh process.

    python -m benchmarks.first_queries REPOSITORY [--out docs/eval/first-queries.json]

The queries are the first lines of the repository's docstrings (60 different ones), so that
no two queries share a cached embedding.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERIES = 60
SCENARIOS = ("cold", "warmed")


def _queries(repository) -> list[str]:
    from indexing.selectors import active_units

    seen: dict[str, None] = {}
    for docstring in active_units(repository=repository).values_list("docstring", flat=True):
        line = (docstring or "").strip().splitlines()[0:1]
        if line and len(line[0]) > 15:
            seen.setdefault(line[0][:200])
        if len(seen) == QUERIES:
            break
    return list(seen)


def run_scenario(name: str, scenario: str) -> dict:
    """In this (fresh) process: time each of the first queries."""
    from reporift.cli import prepare

    started = time.perf_counter()
    prepare()
    from indexing.models import Repository
    from search.services import search
    from search.warmup import prefetch_vectors, warm_up

    repository = Repository.objects.get(name=name)
    queries = _queries(repository)
    if scenario == "warmed":
        warm_up()
        prefetch_vectors(wait_s=120)
    ready_s = time.perf_counter() - started
    latencies = []
    for query in queries:
        t0 = time.perf_counter()
        search(repository=repository, query=query, k=10)
        latencies.append((time.perf_counter() - t0) * 1000)
    return {
        "scenario": scenario,
        "units": repository.active_run.units_total,
        "queries": len(latencies),
        "ready_s": round(ready_s, 2),
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1),
        "first_ms": round(latencies[0], 1),
        "latencies_ms": [round(ms, 1) for ms in latencies],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository")
    parser.add_argument("--out", default=str(ROOT / "docs" / "eval" / "first-queries.json"))
    parser.add_argument("--scenario", choices=SCENARIOS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scenario:
        print(json.dumps(run_scenario(args.repository, args.scenario)))
        return
    rows = []
    for scenario in SCENARIOS:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.first_queries",
                args.repository,
                "--scenario",
                scenario,
            ],
            cwd=ROOT,
            env=os.environ,
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print({k: v for k, v in rows[-1].items() if k != "latencies_ms"})
    report = {"repository": args.repository, "date": time.strftime("%Y-%m-%d"), "runs": rows}
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
