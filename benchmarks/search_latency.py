"""Single-request search latency: fast mode on the demo repository and on a repository of over
20,000 units (several installed packages' source in one tree), and full mode stage by stage with
the embedded model.

    python -m benchmarks.search_latency [--big django,openai,chromadb] [--full-queries 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

from benchmarks.common import machine_line, package_dir, setup_django, write_section
from benchmarks.load import QUERIES
from search.evaluation.metrics import percentile

FULL_QUERIES = [
    "retry failed http calls",
    "parse cookies from a header",
    "check if a url bypasses the proxy",
    "stream a response body in chunks",
    "guess the encoding of a response",
]


def fast_latencies(repository, rounds: int = 10) -> tuple[list[float], dict[str, float]]:
    """Wall times of fast-mode searches, and the median of each stage's own time."""
    from search.services import search

    search(repository=repository, query="warm up", k=10)
    times, stages = [], {}
    for _ in range(rounds):
        for query in QUERIES:
            start = time.perf_counter()
            response = search(repository=repository, query=query, k=10)
            times.append((time.perf_counter() - start) * 1000)
            for stage, ms in response.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
    return times, {k: statistics.median(v) for k, v in stages.items() if k != "total"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--big", default="django,openai,chromadb")
    parser.add_argument("--full-queries", type=int, default=5)
    args = parser.parse_args()
    data_dir = setup_django()
    from indexing.services import index_run_execute, index_run_start, repository_create
    from search.services import search

    demo = repository_create(name="demo", source=str(package_dir("requests")))
    index_run_execute(run=index_run_start(repository=demo, enqueue=False))
    big_root = Path(data_dir) / "big"
    for name in args.big.split(","):
        shutil.copytree(
            package_dir(name),
            big_root / name,
            ignore=shutil.ignore_patterns("__pycache__", "tests"),
        )
    big = repository_create(name="big", source=str(big_root))
    start = time.perf_counter()
    big_run = index_run_execute(run=index_run_start(repository=big, enqueue=False))
    big_index_s = time.perf_counter() - start
    demo.refresh_from_db()
    rows = []
    for label, repository, units in (
        ("demo (requests)", demo, demo.active_run.units_total),
        (f"{args.big} in one tree", big, big_run.units_total),
    ):
        times, profile = fast_latencies(repository)
        rows.append(
            f"| {label} | {units} | {len(times)} | {percentile(times, 50):.1f} ms "
            f"| {percentile(times, 95):.1f} ms | {max(times):.1f} ms "
            f"| {', '.join(f'{k} {v:.1f}' for k, v in profile.items())} |"
        )

    from agents.llm import configured_model
    from search.services import FAST_STAGES

    model = configured_model()
    stages: dict[str, list[float]] = {}
    notices: list[str] = []
    for query in FULL_QUERIES[: args.full_queries]:
        response = search(
            repository=demo,
            query=query,
            k=10,
            mode="full",
            stages=(*FAST_STAGES, "S2", "S5", "rerank"),
        )
        notices += response.notices
        for stage, ms in response.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    full_rows = [
        f"| {stage} | {statistics.median(v):.0f} ms | {max(v):.0f} ms |"
        for stage, v in stages.items()
    ]
    write_section(
        "search-latency",
        "\n".join(
            [
                "## Search latency",
                "",
                f"Machine: {machine_line()}. Command: `python -m benchmarks.search_latency --big "
                f"{args.big}` (part of `make bench`). One request at a time, warm process, k = 10, "
                f"embedded SQLite and Chroma. The large tree took {big_index_s / 60:.1f} min to "
                f"index ({big_run.units_total / big_index_s:.1f} units/s).",
                "",
                "### Fast mode (S1 + S6 + S4 and the learned ranker, no LLM)",
                "",
                "| repository | units | queries | p50 | p95 | max | median ms per stage |",
                "| --- | --- | --- | --- | --- | --- | --- |",
                *rows,
                "",
                f"### Full mode, stage by stage ({model}, demo repository, "
                f"{len(FULL_QUERIES[: args.full_queries])} queries, empty LLM cache)",
                "",
                "| stage | median | max |",
                "| --- | --- | --- |",
                *full_rows,
                "",
                f"Notices during these queries: {len(notices)}"
                + (f' (e.g. "{notices[0]}").' if notices else "."),
            ]
        ),
    )


if __name__ == "__main__":
    main()
