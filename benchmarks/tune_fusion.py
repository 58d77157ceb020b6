"""Choose fusion weights from measurements: rankings of each stream alone (from `evaluate
--streams SX --k 30 --out ...` reports) are fused offline for a grid of weights, with the same
pure RRF function search uses, and scored against the gold.

    python -m benchmarks.tune_fusion var/tune/cosqa-S1.json var/tune/cosqa-S4.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from search.evaluation.metrics import mean_metrics, query_metrics
from search.fusion import reciprocal_rank_fusion

WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)


def relevant(row: dict, gold: list[dict], snippets: bool) -> bool:
    for g in gold:
        if snippets and g["path"] == row["path"]:
            return True
        if (
            not snippets
            and g["path"] == row["path"]
            and (
                g["qualname"] == row["qualname"]
                or (row.get("kind") == "class" and g["qualname"].startswith(row["qualname"] + "."))
            )
        ):
            return True
    return False


def sweep(first: dict, second: dict, rrf_k: int = 60) -> list[dict]:
    snippets = first["format"] != "repo"
    name_a, name_b = first["streams"][0], second["streams"][0]
    rows = []
    for weight in WEIGHTS:
        per_query = []
        for qa, qb in zip(first["per_query"], second["per_query"], strict=True):
            key = lambda r: (r["path"], r["qualname"])  # noqa: E731
            by_key = {key(r): r for r in qa["results"] + qb["results"]}
            fused = reciprocal_rank_fusion(
                {name_a: [key(r) for r in qa["results"]], name_b: [key(r) for r in qb["results"]]},
                weights={name_a: 1.0, name_b: weight},
                k=rrf_k,
            )
            relevances, matched = [], set()
            for hit in fused[:10]:
                row = by_key[hit.key]
                is_hit = relevant(row, qa["gold"], snippets) and row["path"] not in matched
                if is_hit and snippets:
                    matched.add(row["path"])
                relevances.append(1.0 if is_hit else 0.0)
            per_query.append(query_metrics(relevances, [1.0] * len(qa["gold"]), k=10))
        means = mean_metrics(per_query)
        rows.append({"weight": weight, **means})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args()
    first, second = (json.loads(Path(p).read_text()) for p in (args.first, args.second))
    a, b = first["streams"][0], second["streams"][0]
    print(f"{first['dataset']}: {first['n_queries']} queries; {a} weight 1, {b} weight varies")
    print(f"| {b} weight | Success@1 | Success@10 | MRR | NDCG@10 |")
    print("| --- | --- | --- | --- | --- |")
    for row in sweep(first, second):
        print(
            f"| {row['weight']:.2f} | {row['success@1']:.3f} | {row['success@10']:.3f} "
            f"| {row['mrr']:.3f} | {row['ndcg@10']:.3f} |"
        )


if __name__ == "__main__":
    main()
