"""All repositories at once: how long fast mode takes to answer over every repository a data dir
holds (the page's "all repositories", the API without a repository), in one process warmed as a
server warms (search.warmup over every repository): the first search, then the p50 and p95 of
the next, routed as the product routes (one pass over every repository's static vectors picks
those ranked in full: search.across_routing) and, on the same questions in the same process,
with every repository ranked; the pass's own time, the ranked searches' and the process's
memory beside them.

    python -m benchmarks.across_speed --data-dir DIR --questions FILE_OR_DIR... [--limit 40] \\
        [--copies N] [--compare N] [--out docs/eval/across-speed.json]

The questions are only a workload (each asked over all repositories, whichever its answer lies
in); the data dir's repositories are those already indexed there (e.g. by `manage.py evaluate`
with REPORIFT_DATA_DIR set to it). `--copies N` first indexes every repository's tree N more
times under other names (phase 1, as a team's many services would be): a synthetic data dir of
N + 1 times the units, for the point at a million units.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from benchmarks.common import machine_line, setup_django, status_mib
from benchmarks.query_speed import emit
from search.evaluation.metrics import percentile


def add_copies(copies: int) -> dict:
    """Index every repository's tree `copies` more times (phase 1), once each; how long."""
    from indexing.models import Repository
    from indexing.services import index_run_execute, index_run_start, repository_create

    started, units = time.perf_counter(), 0
    originals = list(Repository.objects.filter(active_run__isnull=False).order_by("pk"))
    for number in range(1, copies + 1):
        for original in originals:
            name = f"{original.name}-copy{number}"
            if Repository.objects.filter(name=name, active_run__isnull=False).exists():
                continue
            repository = Repository.objects.filter(name=name).first() or repository_create(
                name=name, source=original.source, ref=original.ref, is_public=True
            )
            run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
            units += run.units_total or 0
            print(f"{name}: {run.status}, {run.units_total} units", flush=True)
    return {"copies": copies, "indexed_units": units, "seconds": time.perf_counter() - started}


def timed(repositories: list, queries: list[str]) -> dict:
    from search.across import search_across

    latencies, route, ranked = [], [], []
    for query in queries:
        start = time.perf_counter()
        response = search_across(repositories=repositories, query=query, k=10)
        latencies.append((time.perf_counter() - start) * 1000)
        route.append(response.timings_ms.get("route", 0.0))
        ranked.append(response.timings_ms.get("ranked_repositories", len(repositories)))
    next_ = latencies[1:]
    # The second half alone: a process that has met the first half's candidates (their rows
    # let go past the cache, their words kept packed: search.ranking.word_memo).
    later = latencies[len(latencies) // 2 :]
    return {
        "first_ms": round(latencies[0], 1) if latencies else None,
        "next_p50_ms": round(percentile(next_, 50), 1) if next_ else None,
        "next_p95_ms": round(percentile(next_, 95), 1) if next_ else None,
        "later_half_p50_ms": round(percentile(later, 50), 1) if later else None,
        "later_half_p95_ms": round(percentile(later, 95), 1) if later else None,
        "route_p50_ms": round(percentile(route[1:], 50), 2) if next_ else None,
        "ranked_repositories_p50": percentile(ranked, 50) if ranked else None,
        "rss_mib": status_mib(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", type=Path, nargs="+", required=True)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--copies", type=int, default=0)
    parser.add_argument(
        "--compare",
        type=int,
        default=0,
        help="ask only the first N questions with every repository ranked (0: all of them)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    os.environ.setdefault("REPORIFT_PHASE2_MAX_UNITS", "1")
    setup_django(args.data_dir)
    from django.conf import settings

    from indexing.models import Repository
    from indexing.phase2 import background_work_of
    from search.evaluation.questions import load_questions
    from search.ranking.features import MEMO
    from search.warmup import warm_up

    copies = add_copies(args.copies) if args.copies else None
    rows = [row for path in args.questions for row in load_questions(path, part="tune").queries]
    # Every corpus's questions in turn, so that the workload is not one repository's.
    by_corpus: dict[str, list[str]] = {}
    for row in rows:
        by_corpus.setdefault(row.corpus, []).append(row.query)
    queries = [q for group in zip(*by_corpus.values(), strict=False) for q in group][: args.limit]
    # What indexing's background work saves for every generation (the words of every unit),
    # for indexes made before it did: once, before anything is timed.
    for run_id in Repository.objects.filter(active_run__isnull=False).values_list(
        "active_run", flat=True
    ):
        background_work_of(run_id=run_id)
    load_before = [round(v, 2) for v in os.getloadavg()]
    started = time.perf_counter()
    warmed = warm_up()
    warm_s = round(time.perf_counter() - started, 1)
    repositories = list(Repository.objects.filter(active_run__isnull=False).order_by("pk"))
    units = sum(r.active_run.units_total for r in repositories)
    routed = timed(repositories, queries)
    search = settings.REPORIFT["SEARCH"]
    ranked_count = search["ACROSS"]["REPOSITORIES"]
    # The same questions with every repository ranked (what the product did before routing).
    search["ACROSS"] = {**search["ACROSS"], "REPOSITORIES": 0}
    every = timed(repositories, queries[: args.compare or None])
    report = {
        "command": "python -m benchmarks.across_speed " + " ".join(argv or sys.argv[1:]),
        "machine": machine_line(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": load_before,
        "load_after": [round(v, 2) for v in os.getloadavg()],
        "repositories": len(repositories),
        "units": units,
        "copies": copies,
        "warm_up_s": warm_s,
        "warm_up": {"complete": warmed.complete, "units_read": warmed.units} | warmed.seconds,
        "word_memo_units": settings.REPORIFT["WORD_MEMO_UNITS"],
        "queries": len(queries),
        "ranked_repositories_setting": ranked_count,
        "routed": routed,
        "every_repository_ranked": every,
        "word_memo_held": {"units": len(MEMO), "packed_mib": round(MEMO.size_bytes() / 2**20, 1)},
    }
    return emit(report, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
