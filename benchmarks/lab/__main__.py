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
import time
from pathlib import Path

from benchmarks.lab import data


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
    from benchmarks.lab import experiments

    experiments.run(args)


if __name__ == "__main__":
    main()
