"""Which learned ranker, and how much the code cosine should weigh beside its score
(`REPORIFT["SEARCH"]["RANKER"]` and `["RANKER_CODE_WEIGHT"]`,
`search.ranking.order.blended_scores`), measured through the product's own fast mode on both
dev sets, each configuration paired against S1 alone and against the shipped default.

    python -m benchmarks.ranker_weight --cosqa PATH/cosqa-retrieval-dev-500.json
        [--packages var/benchmarks/packages] [--weights 0 0.5 1 1.5 2 3]
        [--rankers shipped=search/ranking/ranker.txt other=PATH/ranker.txt]
        [--exclude-packages matplotlib,pip]

A ranker fitted on docstring-like queries over whole repositories trusts names and shared words
too much on web-style questions, and the code cosine corrects it. This sweep is how the defaults
are chosen: the largest gain on the dev packages while CoSQA dev stays within the noise of S1
alone (or above it). Writes docs/eval/ranker-code-weight.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.common import ROOT, setup_django, without_packages

KEYS = ("success@1", "mrr", "ndcg@10")
SHIPPED = f"shipped={ROOT / 'search' / 'ranking' / 'ranker.txt'}"


def _interval(d: dict) -> str:
    return f"{d['difference']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    parser.add_argument("--cosqa", type=Path, required=True)
    parser.add_argument("--weights", nargs="+", type=float, default=[0, 0.5, 1, 1.5, 2, 3])
    parser.add_argument(
        "--rankers", nargs="+", default=[SHIPPED], help="NAME=PATH of each ranker model"
    )
    parser.add_argument("--exclude-packages", default="", help="comma-separated dev packages")
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "eval" / "ranker-code-weight.json"
    )
    args = parser.parse_args()
    rankers = dict(item.split("=", 1) for item in args.rankers)
    setup_django(str(Path(args.data_dir).resolve()))
    from django.conf import settings

    from indexing.embedding import get_embedder
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.evaluation.runner import evaluate, per_query_values
    from search.evaluation.stats import paired_difference

    search = settings.REPORIFT["SEARCH"]
    default = f"shipped + {search['RANKER_CODE_WEIGHT']:g} x code cosine"
    excluded = [p for p in args.exclude_packages.split(",") if p]
    datasets = {
        "dev packages": without_packages(
            load_dataset(args.packages / "dev.jsonl", "repo"), excluded
        ),
        "CoSQA dev": load_dataset(args.cosqa, "cosqa"),
    }
    out: dict = {
        "command": "python -m benchmarks.ranker_weight",
        "embedder": get_embedder().model_id,
        "rankers": rankers,
        "excluded_packages": excluded,
        "sets": {},
    }
    lines = [
        "| set | configuration | "
        + " | ".join(KEYS)
        + f" | ΔS@1 vs S1 | ΔNDCG@10 vs S1 | ΔMRR vs {default} |",
        "| --- | --- | " + " | ".join("---" for _ in KEYS) + " | --- | --- | --- |",
    ]
    for title, dataset in datasets.items():
        repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
        runs = {"S1 only": (("S1",), None, None)} | {
            f"{name} + {w:g} x code cosine": (("S1", "S6", "S4", "ranker"), path, w)
            for name, path in rankers.items()
            for w in args.weights
        }
        reports = {}
        for label, (stages, path, weight) in runs.items():
            if path is not None:
                search["RANKER"], search["RANKER_CODE_WEIGHT"] = path, weight
            reports[label] = evaluate(
                dataset=dataset, k=10, mode="fast", stages=stages, repositories=repositories
            )
        rows = {}
        for label, report in reports.items():
            diffs = {
                f"{key} vs S1 only": paired_difference(
                    per_query_values(report, key), per_query_values(reports["S1 only"], key)
                )
                for key in ("success@1", "ndcg@10")
            }
            if default in reports:
                diffs[f"mrr vs {default}"] = paired_difference(
                    per_query_values(report, "mrr"), per_query_values(reports[default], "mrr")
                )
            rows[label] = {
                "metrics": {key: report[key] for key in KEYS},
                "ci95": {key: report["ci95"][key] for key in KEYS},
                "differences": diffs,
                "per_query_mrr": per_query_values(report, "mrr"),
            }
            cells = " | ".join(f"{report[key]:.3f}" for key in KEYS)
            delta = " | ".join(
                "—" if label == "S1 only" and "S1" in name else _interval(d)
                for name, d in diffs.items()
            )
            lines.append(f"| {title} | {label} | {cells} | {delta} |")
        out["sets"][title] = {"queries": len(dataset.queries), "rows": rows}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
