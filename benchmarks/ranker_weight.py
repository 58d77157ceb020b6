"""How much the code cosine should weigh beside the learned ranker's score
(`REPORIFT["SEARCH"]["RANKER_CODE_WEIGHT"]`, `search.ranking.order.blended_scores`), measured
through the product's own fast mode on both dev sets, paired against S1 alone.

    python -m benchmarks.ranker_weight --cosqa PATH/cosqa-retrieval-dev-500.json
        [--packages var/benchmarks/packages] [--weights 0 0.5 1 1.5 2 3]

The ranker learned from docstring-like queries over whole repositories; on web-style questions
it trusts names and shared words too much, and the code cosine corrects it. This sweep is how
the default was chosen: the weight that keeps the largest gain on the dev packages while
CoSQA dev stays within the noise of the plain embedder. Writes docs/eval/ranker-code-weight.json
and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.common import ROOT, setup_django

KEYS = ("success@1", "mrr", "ndcg@10")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    parser.add_argument("--cosqa", type=Path, required=True)
    parser.add_argument("--weights", nargs="+", type=float, default=[0, 0.5, 1, 1.5, 2, 3])
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "eval" / "ranker-code-weight.json"
    )
    args = parser.parse_args()
    setup_django(str(Path(args.data_dir).resolve()))
    from django.conf import settings

    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.evaluation.runner import evaluate, per_query_values
    from search.evaluation.stats import paired_difference

    datasets = {
        "dev packages": load_dataset(args.packages / "dev.jsonl", "repo"),
        "CoSQA dev": load_dataset(args.cosqa, "cosqa"),
    }
    out: dict = {"command": "python -m benchmarks.ranker_weight", "sets": {}}
    lines = [
        "| set | configuration | " + " | ".join(KEYS) + " | ΔS@1 vs S1 | ΔNDCG@10 vs S1 |",
        "| --- | --- | " + " | ".join("---" for _ in KEYS) + " | --- | --- |",
    ]
    for title, dataset in datasets.items():
        repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
        runs = {"S1 only": ("S1",)} | {
            f"ranker + {w:g} x code cosine": ("S1", "S6", "S4", "ranker") for w in args.weights
        }
        weights = [None, *args.weights]
        reports = {}
        for (label, stages), weight in zip(runs.items(), weights, strict=True):
            if weight is not None:
                settings.REPORIFT["SEARCH"]["RANKER_CODE_WEIGHT"] = weight
            reports[label] = evaluate(
                dataset=dataset, k=10, mode="fast", stages=stages, repositories=repositories
            )
        rows = {}
        for label, report in reports.items():
            diffs = {
                key: paired_difference(
                    per_query_values(report, key), per_query_values(reports["S1 only"], key)
                )
                for key in ("success@1", "ndcg@10")
            }
            rows[label] = {
                "metrics": {key: report[key] for key in KEYS},
                "ci95": {key: report["ci95"][key] for key in KEYS},
                "vs_S1_only": diffs,
            }
            cells = " | ".join(f"{report[key]:.3f}" for key in KEYS)
            delta = " | ".join(
                "—"
                if label == "S1 only"
                else f"{d['difference']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
                for d in diffs.values()
            )
            lines.append(f"| {title} | {label} | {cells} | {delta} |")
        out["sets"][title] = {"queries": len(dataset.queries), "rows": rows}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
