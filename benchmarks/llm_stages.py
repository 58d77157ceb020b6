"""Does each LLM stage help with a given model? Full mode with one LLM stage at a time, all of
them, and fast mode, on the same queries of the package benchmark (dev data). The LLM cache makes
the configurations after the first cheap: they reuse its augmentations and generated code.

    python -m benchmarks.llm_stages [--limit 30] [--rows var/benchmarks/packages/rows.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from benchmarks.common import ROOT, machine_line, write_section

CONFIGS = [
    ("all LLM stages: S1+S2+S3+S4+S5 + rerank", "full", ("S1", "S2", "S3", "S4", "S5", "rerank")),
    ("fast: S1+S4 (no LLM)", "fast", ("S1", "S4")),
    ("+ S5 (augmented query)", "full", ("S1", "S4", "S5")),
    ("+ S2 + S3 (generated code)", "full", ("S1", "S2", "S3", "S4")),
    ("+ rerank", "full", ("S1", "S4", "rerank")),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--rows", default="var/benchmarks/packages/rows.jsonl")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    import django

    django.setup()
    from agents.llm import get_llm_client
    from search.evaluation.datasets import load_dataset
    from search.evaluation.runner import evaluate

    rows = Path(args.rows)
    if not rows.exists():
        raise SystemExit(f"{rows} missing: run `python -m benchmarks.package_benchmark` first")
    dataset = load_dataset(rows, "repo")
    model = get_llm_client().model
    table = []
    out_dir = ROOT / "docs" / "eval"
    for label, mode, streams in CONFIGS:
        report = evaluate(dataset=dataset, mode=mode, streams=streams, limit=args.limit)
        slug = "-".join(streams)
        (out_dir / f"llm-stages-{model}-{slug}.json").write_text(json.dumps(report, indent=1))
        table.append(
            f"| {label} | {report['success@1']:.3f} | {report['success@10']:.3f} "
            f"| {report['mrr']:.3f} | {report['ndcg@10']:.3f} "
            f"| {report['latency_ms']['p50'] / 1000:.1f} s |"
        )
        print(table[-1], flush=True)
    write_section(
        f"llm-stages-{model}",
        "\n".join(
            [
                f"## Do the LLM stages help? ({model})",
                "",
                f"Machine: {machine_line()}. Command: `python -m benchmarks.llm_stages --limit "
                f"{args.limit}` (after `python -m benchmarks.package_benchmark`). The first "
                f"{args.limit} rows of the package benchmark (dev data), whole-repository search; "
                "each row names the streams that ran. Per-query reports: "
                "`docs/eval/llm-stages-*.json`.",
                "",
                "| configuration | Success@1 | Success@10 | MRR | NDCG@10 | p50 latency |",
                "| --- | --- | --- | --- | --- | --- |",
                *table,
                "",
                "Rows after the first reuse its cached augmentations and generated code, so their "
                "latency leaves that LLM time out; the first row shows the real cost of all "
                "stages. "
                "A stage is on by default for a model only if its row beats fast mode here "
                '(`REPORIFT["AGENTS"]["PER_MODEL"]` in settings).',
            ]
        ),
    )


if __name__ == "__main__":
    main()
