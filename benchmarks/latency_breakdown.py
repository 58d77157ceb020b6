"""Where a fast-mode query's time goes, on a repository already indexed in a data dir: p50 and
p95 with a new query vector each time, with the query vector cached, and answered by phase 1's
static vectors, with the median of every stage.

    python -m benchmarks.latency_breakdown --data-dir DIR --repository NAME [--rounds 5] \\
        [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from benchmarks.load import QUERIES
from search.evaluation.metrics import percentile


def timed(repository, *, rounds: int, cached: bool, phase: int | None) -> dict:
    from indexing.embedding import query_vector
    from search.services import search

    times, stages = [], {}
    for _ in range(rounds):
        for query in QUERIES:
            if not cached:
                query_vector.cache_clear()
            start = time.perf_counter()
            response = search(repository=repository, query=query, k=10, phase=phase)
            times.append((time.perf_counter() - start) * 1000)
            for stage, ms in response.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
    return {
        "n": len(times),
        "p50": round(percentile(times, 50), 1),
        "p95": round(percentile(times, 95), 1),
        "stages_median": {k: round(statistics.median(v), 2) for k, v in stages.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", required=True, help="the data dir the repository is in")
    parser.add_argument("--repository", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from benchmarks.common import machine_line, setup_django

    setup_django(args.data_dir)
    from indexing.models import Repository
    from search.warmup import prefetch_vectors, warm_up

    warm_up()
    # A server copies its repositories' vectors at start (search.warmup): measure after that,
    # as its searches run once it is warm.
    copied = prefetch_vectors(wait_s=300)
    repository = Repository.objects.get(name=args.repository)
    for phase in (None, 1):  # what a process's first searches load
        timed(repository, rounds=1, cached=True, phase=phase)
    report = {
        "repository": args.repository,
        "units": repository.active_run.units_total,
        "machine": machine_line(),
        "vectors_copied_before_timing": copied,
        "new query": timed(repository, rounds=args.rounds, cached=False, phase=None),
        "cached query vector": timed(repository, rounds=args.rounds, cached=True, phase=None),
        "phase 1": timed(repository, rounds=args.rounds, cached=False, phase=1),
    }
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
