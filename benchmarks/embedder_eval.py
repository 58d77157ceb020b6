"""The tuned embedder against the base one, through the product's own search, on both dev sets.

    # one run per embedder, each in its own data dir (an index belongs to its embedder):
    python -m benchmarks.embedder_eval run --label base --delta "" --data-dir D1 --cosqa DEV
    python -m benchmarks.embedder_eval run --label tuned \
        --delta indexing/embedders/minilm-code.json --data-dir D2 --cosqa DEV
    python -m benchmarks.embedder_eval compare var/benchmarks/embedder/eval-base.json \
        var/benchmarks/embedder/eval-tuned.json [--manifest indexing/embedders/minilm-code.json]

Each run evaluates "S1 only" and fast mode and keeps every query's metrics, so that `compare`
pairs the same queries (docs/eval/embedder-tuned.json; `--manifest` records the tuned figures
in the delta's manifest). `--sets cosqa` alone takes minutes, the dev packages hours.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.common import ROOT, difference, setup_django, without_packages

KEYS = ("success@1", "success@10", "mrr", "ndcg@10")
PAIRED = ("success@1", "mrr", "ndcg@10")  # the Δ columns
CONFIGS = {"S1 only": ("S1",), "fast mode": ("S1", "S6", "S4", "ranker")}
SETS = ("packages", "cosqa")


def run(args: argparse.Namespace) -> None:
    import os

    os.environ["REPORIFT_EMBEDDER_OPTIONS"] = json.dumps({"delta": args.delta})
    setup_django(str(Path(args.data_dir).resolve()))
    from indexing.embedding import get_embedder
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.evaluation.runner import evaluate, per_query_values

    embedder = get_embedder()
    if embedder.notice:
        raise SystemExit(embedder.notice)
    paths = {"packages": (args.packages / "dev.jsonl", "repo"), "cosqa": (args.cosqa, "cosqa")}
    out: dict = {"label": args.label, "model_id": embedder.model_id, "sets": {}}
    excluded = [p for p in args.exclude_packages.split(",") if p]
    out["excluded_packages"] = excluded
    for name in args.sets:
        dataset = without_packages(load_dataset(*paths[name]), excluded)
        started = time.perf_counter()
        repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
        indexed_s = time.perf_counter() - started
        rows = {}
        for label, stages in CONFIGS.items():
            report = evaluate(
                dataset=dataset, k=10, mode="fast", stages=stages, repositories=repositories
            )
            rows[label] = {
                "metrics": {key: report[key] for key in KEYS},
                "ci95": {key: report["ci95"][key] for key in KEYS},
                "latency_ms": report["latency_ms"],
                "per_query": {key: per_query_values(report, key) for key in KEYS},
            }
        out["sets"][name] = {"queries": len(dataset.queries), "index_s": indexed_s, "rows": rows}
        print(f"{args.label} {name}: " + json.dumps({k: v["metrics"] for k, v in rows.items()}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out) + "\n")


def compare(args: argparse.Namespace) -> None:
    base, tuned = (json.loads(Path(p).read_text()) for p in (args.base, args.tuned))
    if base.get("excluded_packages", []) != tuned.get("excluded_packages", []):
        raise SystemExit("the two runs left out different packages: their queries do not pair")
    header = " | ".join(f"{key} base → tuned" for key in KEYS)
    lines = [f"| set | configuration | {header} | ΔS@1 | ΔMRR | ΔNDCG@10 |"]
    report: dict = {
        "command": "python -m benchmarks.embedder_eval compare",
        "base": base["model_id"],
        "tuned": tuned["model_id"],
        "excluded_packages": base.get("excluded_packages", []),
        "sets": {},
    }
    for name in base["sets"]:
        if name not in tuned["sets"]:
            continue
        report["sets"][name] = {"queries": base["sets"][name]["queries"], "rows": {}}
        for label in CONFIGS:
            a, b = tuned["sets"][name]["rows"][label], base["sets"][name]["rows"][label]
            diffs = _paired(a, b)
            report["sets"][name]["rows"][label] = {
                "base": {"metrics": b["metrics"], "ci95": b["ci95"]},
                "tuned": {"metrics": a["metrics"], "ci95": a["ci95"]},
                "tuned_vs_base": diffs,
                "per_query": {"base": b["per_query"], "tuned": a["per_query"]},
            }
            cells = " | ".join(f"{_cell(b, key)} → {_cell(a, key)}" for key in KEYS)
            deltas = " | ".join(difference(d) for d in diffs.values())
            lines.append(f"| {name} | {label} | {cells} | {deltas} |")
        # What a user gains from the whole change: today's fast mode against the plain model
        # alone (the baseline of the headline tables).
        product, plain = (
            tuned["sets"][name]["rows"]["fast mode"],
            base["sets"][name]["rows"]["S1 only"],
        )
        overall = _paired(product, plain)
        report["sets"][name]["fast_mode_tuned_vs_S1_only_base"] = overall
        deltas = " | ".join(difference(d) for d in overall.values())
        empty = " |" * len(KEYS)
        lines.append(f"| {name} | fast mode (tuned) vs S1 only (base) |{empty} {deltas} |")
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    if args.manifest:
        manifest = json.loads(args.manifest.read_text())
        manifest["dev"] = {
            name: {
                label: {"metrics": row["tuned"]["metrics"], "ci95": row["tuned"]["ci95"]}
                for label, row in entry["rows"].items()
            }
            | {"queries": entry["queries"]}
            for name, entry in report["sets"].items()
        } | {"report": str(args.out.relative_to(ROOT)) if args.out.is_absolute() else str(args.out)}
        args.manifest.write_text(json.dumps(manifest, indent=1) + "\n")
    print("\n".join(lines))


def _paired(candidate: dict, baseline: dict) -> dict:
    """Two rows of runs over the same queries: each Δ column's paired difference."""
    from search.evaluation.stats import paired_difference

    return {
        key: paired_difference(candidate["per_query"][key], baseline["per_query"][key])
        for key in PAIRED
    }


def _cell(row: dict, key: str) -> str:
    low, high = row["ci95"][key]
    return f"{row['metrics'][key]:.3f} [{low:.3f}, {high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("run")
    one.add_argument("--label", required=True)
    one.add_argument("--delta", default="", help="manifest path; empty for the base model")
    one.add_argument("--data-dir", required=True)
    one.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    one.add_argument("--cosqa", type=Path, required=True)
    one.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    one.add_argument(
        "--exclude-packages", default="", help="dev packages left out, comma-separated"
    )
    one.add_argument("--out", type=Path)
    both = commands.add_parser("compare")
    both.add_argument("base", type=Path)
    both.add_argument("tuned", type=Path)
    both.add_argument("--out", type=Path, default=ROOT / "docs" / "eval" / "embedder-tuned.json")
    both.add_argument("--manifest", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        args.out = args.out or Path(f"var/benchmarks/embedder/eval-{args.label}.json")
        run(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
