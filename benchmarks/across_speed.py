"""All repositories at once: how long fast mode takes to answer over every repository a data dir
holds (the page's "all repositories", the API without a repository), in one process warmed as a
server warms (search.warmup over every repository): the first search, then the p50 and p95 of
the next, with the repositories' own stage medians beside them.

    python -m benchmarks.across_speed --data-dir DIR --questions FILE_OR_DIR [--limit 40] \\
        [--out docs/eval/across-speed.json]

The questions are only a workload (each asked over all repositories, whichever its answer lies
in); the data dir's repositories are those already indexed there (e.g. by `benchmarks.query_speed`
or `manage.py evaluate`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from benchmarks.common import machine_line, setup_django
from benchmarks.query_speed import emit
from search.evaluation.metrics import percentile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    os.environ.setdefault("REPORIFT_PHASE2_MAX_UNITS", "1")
    setup_django(args.data_dir)
    from indexing.models import Repository
    from search.across import search_across
    from search.evaluation.questions import load_questions
    from search.warmup import warm_up

    rows = load_questions(args.questions, part="tune").queries
    # Every corpus's questions in turn, so that the workload is not one repository's.
    by_corpus: dict[str, list[str]] = {}
    for row in rows:
        by_corpus.setdefault(row.corpus, []).append(row.query)
    queries = [q for group in zip(*by_corpus.values(), strict=False) for q in group][: args.limit]
    load_before = [round(v, 2) for v in os.getloadavg()]
    started = time.perf_counter()
    warmed = warm_up()
    warm_s = round(time.perf_counter() - started, 1)
    repositories = list(Repository.objects.filter(active_run__isnull=False).order_by("pk"))
    units = sum(r.active_run.units_total for r in repositories)
    latencies = []
    for query in queries:
        start = time.perf_counter()
        search_across(repositories=repositories, query=query, k=10)
        latencies.append((time.perf_counter() - start) * 1000)
    report = {
        "command": "python -m benchmarks.across_speed " + " ".join(argv or sys.argv[1:]),
        "machine": machine_line(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": load_before,
        "load_after": [round(v, 2) for v in os.getloadavg()],
        "repositories": len(repositories),
        "units": units,
        "warm_up_s": warm_s,
        "warm_up": {"complete": warmed.complete, "units_read": warmed.units} | warmed.seconds,
        "queries": len(latencies),
        "first_ms": round(latencies[0], 1) if latencies else None,
        "next_p50_ms": round(percentile(latencies[1:], 50), 1) if len(latencies) > 1 else None,
        "next_p95_ms": round(percentile(latencies[1:], 95), 1) if len(latencies) > 1 else None,
        "per_repository_ms": round(percentile(latencies[1:], 50) / len(repositories), 2)
        if len(latencies) > 1 and repositories
        else None,
    }
    return emit(report, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
