"""Search across repositories, measured: the dev packages searched as one pool against each
package alone, and what searching more repositories costs.

    python -m benchmarks.across_repositories [--packages var/benchmarks/packages]
        [--data-dir var/benchmarks/lab/data] [--latency-queries 100]

Every dev row's query is searched (fast mode) in its own package alone, and in all 16 dev
packages at once (`search.across.search_across`); a hit in the pool must be the gold unit of the
right package. Success@10 and MRR of the merged list are paired against the single package.
Latency of one query over 2, 5 and 16 repositories (the row's own package among them), p50 and
p95, after a warm-up. Writes docs/eval/across-repositories.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, setup_django


def rank_of_gold(results, repository: str, gold: list[dict]) -> float:
    for rank, result in enumerate(results, start=1):
        unit = result.unit
        if result.repository != repository:
            continue
        for g in gold:
            if unit.path == g["path"] and (
                unit.qualname == g["qualname"]
                or (unit.kind == "class" and g["qualname"].startswith(unit.qualname + "."))
            ):
                return float(rank)
    return float("inf")


def metrics(ranks: list[float]) -> dict[str, np.ndarray]:
    r = np.asarray(ranks)
    return {
        "success@1": (r <= 1).astype(float),
        "success@10": (r <= 10).astype(float),
        "mrr": np.where(np.isfinite(r), 1 / r, 0.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument("--latency-queries", type=int, default=100)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "eval" / "across-repositories.json"
    )
    args = parser.parse_args()
    setup_django(str(Path(args.data_dir).resolve()))
    from indexing.embedding import get_embedder
    from search.across import search_across
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.evaluation.stats import bootstrap_ci, paired_difference

    dataset = load_dataset(args.packages / "dev.jsonl", "repo")
    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    pool = list(repositories.values())
    alone, pooled = [], []
    for query in dataset.queries:
        own = repositories[query.corpus]
        gold = [{"path": g.path, "qualname": g.qualname} for g in query.gold]
        single = search_across(repositories=[own], query=query.query, k=10)
        merged = search_across(repositories=pool, query=query.query, k=10)
        alone.append(rank_of_gold(single.results, own.name, gold))
        pooled.append(rank_of_gold(merged.results, own.name, gold))
    a, p = metrics(alone), metrics(pooled)
    quality = {
        key: {
            "alone": [round(x, 4) for x in bootstrap_ci(a[key])],
            "pooled": [round(x, 4) for x in bootstrap_ci(p[key])],
            "pooled_vs_alone": paired_difference(p[key], a[key]),
        }
        for key in a
    }
    rng = random.Random(7)
    sample = rng.sample(dataset.queries, min(args.latency_queries, len(dataset.queries)))
    latency = {}
    for size in (1, 2, 5, 16):
        times = []
        for query in sample:
            own = repositories[query.corpus]
            others = [r for r in pool if r.pk != own.pk]
            chosen = [own, *rng.sample(others, size - 1)]
            search_across(repositories=chosen, query=query.query, k=10)  # warm its caches
            start = time.perf_counter()
            search_across(repositories=chosen, query=query.query, k=10)
            times.append((time.perf_counter() - start) * 1000)
        latency[str(size)] = {
            "p50_ms": round(float(np.percentile(times, 50)), 1),
            "p95_ms": round(float(np.percentile(times, 95)), 1),
        }
    report = {
        "command": "python -m benchmarks.across_repositories",
        "embedder": get_embedder().model_id,
        "queries": len(dataset.queries),
        "repositories": len(pool),
        "quality": quality,
        "latency": latency,
        # The gold's rank, None when it is not in the top 10.
        "per_query": {
            "alone": [r if np.isfinite(r) else None for r in alone],
            "pooled": [r if np.isfinite(r) else None for r in pooled],
        },
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "per_query"}, indent=1, default=str))


if __name__ == "__main__":
    main()
