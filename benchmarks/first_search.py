"""The first search: after `reporift index`, on the command line; and in a fresh process (a
server, an MCP session) from its start, then its first 60 queries.

    python -m benchmarks.first_search --tree DIR --queries FILE --out docs/eval/first-search.json

`--tree` is indexed into a new data dir (`--phase2` to wait for the transformer's vectors too;
phase 1 by default, as a repository answers seconds after it is added); `--queries` holds one
query a line (the first 60 are asked). Measured, each in its own process:
- `index`: `reporift index` as a user runs it, which also starts the warm search server;
- `cli`: `reporift search` right after it, ten times, whole process timed from outside;
- `fresh`: a process that warms up (search.warmup) and asks the 60 queries, twice: the first
  computes the units' words and saves them, the second reads them back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import machine_line

ROOT = Path(__file__).resolve().parents[1]
NAME = "first-search"

FRESH = r"""
import json, os, sys, time
started = time.perf_counter()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
import django
django.setup()
from indexing.models import Repository
from search.services import search
from search.warmup import warm_up
done = warm_up()
warmed = time.perf_counter()
repository = Repository.objects.get(name=sys.argv[1])
latencies = []
for query in json.loads(sys.argv[2]):
    t = time.perf_counter()
    search(repository=repository, query=query, k=10)
    latencies.append((time.perf_counter() - t) * 1000)
print(json.dumps({"warm_up_s": round(warmed - started, 3), "parts": done.seconds,
                  "first_answer_s": round(warmed - started + latencies[0] / 1000, 3),
                  "latencies_ms": [round(v, 2) for v in latencies]}))
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def measure(tree: Path, queries: list[str], *, phase2: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="first-search-") as scratch:
        env = {
            **os.environ,
            "REPORIFT_DATA_DIR": str(Path(scratch) / "data"),
            "REPORIFT_CLI_SERVER": "1",
            "XDG_RUNTIME_DIR": str(Path(scratch) / "run"),
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)
        if not phase2:
            env["REPORIFT_PHASE2_MAX_UNITS"] = "1"
        reporift = [sys.executable, "-m", "reporift.cli"]

        def run(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
            started = time.perf_counter()
            done = subprocess.run(
                args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=7200
            )
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(args[:4])} failed:\n{done.stderr[-2000:]}")
            return time.perf_counter() - started, done

        index_s, indexed = run([*reporift, "index", str(tree), "--name", NAME])
        cli = [run([*reporift, "search", NAME, queries[i % len(queries)]])[0] for i in range(10)]
        from reporift import cli_server

        fresh = []
        for _ in range(2):
            _, done = run([sys.executable, "-c", FRESH, NAME, json.dumps(queries[:60])])
            fresh.append(json.loads(done.stdout.strip().splitlines()[-1]))
        for socket in Path(env["XDG_RUNTIME_DIR"]).glob("reporift-*/search-*.sock"):
            cli_server.stop(socket)
        units = next(
            (line for line in indexed.stdout.splitlines() if line.startswith("indexed ")), ""
        )
    return {
        "index_s": round(index_s, 2),
        "indexed": units,
        "cli_wall_s": {
            "median": round(statistics.median(cli), 3),
            "min": round(min(cli), 3),
            "max": round(max(cli), 3),
        },
        "fresh": [
            {
                "warm_up_s": f["warm_up_s"],
                "parts": f["parts"],
                "first_answer_s": f["first_answer_s"],
                "first_query_ms": f["latencies_ms"][0],
                "p50_ms": round(_percentile(f["latencies_ms"], 50), 2),
                "p95_ms": round(_percentile(f["latencies_ms"], 95), 2),
            }
            for f in fresh
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--phase2", action="store_true")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    queries = [q.strip() for q in args.queries.read_text().splitlines() if q.strip()]
    report = {"machine": machine_line(), "tree": str(args.tree), "phase2": args.phase2}
    report |= measure(args.tree.resolve(), queries, phase2=args.phase2)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
