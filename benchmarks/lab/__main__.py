"""The ranking lab's command line.

    python -m benchmarks.lab embed --sets dev cosqa --fields code header --variant fp32
    python -m benchmarks.lab fields --sets dev cosqa --out docs/eval/lab-fields.json
    python -m benchmarks.lab embedders --sets dev cosqa --out docs/eval/lab-embedders.json
    python -m benchmarks.lab queries --sets dev cosqa --out docs/eval/lab-queries.json

`--packages` is where `python -m benchmarks.package_benchmark` wrote train.jsonl and dev.jsonl;
`--cosqa` the CoSQA retrieval file (e.g. $COSQA/cosqa-retrieval-dev-500.json; where to get
it: docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.lab import data


def print_table(title: str, rows: dict) -> None:
    print(f"\n{title}")
    print(f"{'configuration':45s} {'S@1':>18s} {'S@10':>6s} {'MRR':>6s} {'NDCG@10':>7s}  dS@1 [CI]")
    for name, row in rows.items():
        s = row["summary"]
        diff = row.get("vs_baseline", {}).get("success@1")
        extra = (
            f"  {diff['difference']:+.3f} [{diff['low']:+.3f},{diff['high']:+.3f}]" if diff else ""
        )
        print(
            f"{name:45s} {s['success@1'][0]:.3f} [{s['success@1'][1]:.3f},{s['success@1'][2]:.3f}] "
            f"{s['success@10'][0]:.3f} {s['mrr'][0]:.3f} {s['ndcg@10'][0]:.3f}{extra}"
        )


def run(args) -> None:
    """Every command but `embed`: run its experiment on each set, print and write the rows."""
    # Imported here: they load Django models, so only after data.setup().
    from benchmarks.lab.experiments import (
        BASELINE,
        compare_embedders,
        evaluate_configs,
        field_configs,
        report,
    )
    from benchmarks.lab.query_lab import query_experiment
    from benchmarks.lab.ranker_lab import ranker_experiment, variants_experiment

    out: dict = {"command": args.command, "sets": {}}
    if args.command == "variants":
        lab_sets = [data.load_set(n, packages=args.packages, cosqa=args.cosqa) for n in args.sets]
        for lab_set, (name, rows) in zip(
            lab_sets, variants_experiment(lab_sets, args).items(), strict=True
        ):
            _record(out, name, lab_set, rows)
        _write(args, out)
        return
    for name in args.sets:
        lab_set = data.load_set(name, packages=args.packages, cosqa=args.cosqa)
        if args.command == "fields":
            embedder = data.embedder_for(args.variant, args.max_tokens)
            ranks = evaluate_configs(lab_set, embedder, field_configs(lab_set.corpora))
            rows = report(ranks, BASELINE)
        elif args.command == "embedders":
            rows = compare_embedders(lab_set)
        elif args.command == "queries":
            embedder = data.embedder_for(args.variant, args.max_tokens)
            rows = query_experiment(lab_set, embedder)
        else:
            rows = ranker_experiment(lab_set, args)
        _record(out, name, lab_set, rows)
    _write(args, out)


def _record(out: dict, name: str, lab_set, rows: dict) -> None:
    units = sum(len(c.units) for c in lab_set.corpora.values())
    print_table(f"{name}: {len(lab_set.queries)} queries, {units} units", rows)
    out["sets"][name] = {"queries": len(lab_set.queries), "units": units, "rows": rows}


def _write(args, out: dict) -> None:
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1))
        print(f"wrote {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(description="RepoRift ranking lab")
    parser.add_argument(
        "command", choices=("embed", "fields", "embedders", "ranker", "variants", "queries")
    )
    parser.add_argument("--sets", nargs="+", default=["dev", "cosqa"])
    parser.add_argument("--fields", nargs="+", default=["code", "header"])
    parser.add_argument("--variant", default="fp32")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    parser.add_argument("--cosqa", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    data.setup()
    if args.command == "embed":
        embedder = data.embedder_for(args.variant, args.max_tokens)
        for name in args.sets:
            lab_set = data.load_set(name, packages=args.packages, cosqa=args.cosqa)
            units = sum(len(c.units) for c in lab_set.corpora.values())
            data.set_query_vectors(lab_set, embedder)
            for field in args.fields:
                start = time.perf_counter()
                data.set_vectors(lab_set, field, embedder)
                print(
                    f"{name} {field} {embedder.model_id}: {units} units in "
                    f"{time.perf_counter() - start:.0f} s",
                    flush=True,
                )
        return
    run(args)


if __name__ == "__main__":
    main()
