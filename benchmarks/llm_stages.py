"""Do the LLM stages help, with a given model? Each stage added to fast mode on its own, and all
of them, on the same queries of both dev sets, with paired 95% intervals against fast mode.

    python -m benchmarks.llm_stages --cosqa PATH/cosqa-retrieval-dev-500.json
        [--packages var/benchmarks/packages] [--per-package 10] [--cosqa-queries 100]
        [--configs fast,pointwise-0.3,...]

Queries: the first `--per-package` dev rows of every dev package and the first
`--cosqa-queries` CoSQA dev queries (a fixed sample: every configuration sees the same ones).
The model is whatever the settings serve (the embedded one by default; `REPORIFT_LLM_...` for
another). LLM answers are cached, so configurations that share a stage (the blend weights of one
reranker, "all") reuse its answers; the per-stage latencies reported come from the first
configuration that ran the stage. A stage may be on by default for a model only where its row
beats fast mode beyond the interval (`REPORIFT["AGENTS"]["PER_MODEL"]`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from benchmarks.common import ROOT, without_packages

FAST = ("S1", "S6", "S4", "ranker")
LLM_STAGES = ("augment", "codegen", "rerank")


def _rerank(reranker: str, weight: float, blend: str = "ranks") -> dict:
    """A reranker's overrides; every row names its blend, prompt and what the judge reads, so
    none inherits them from the model's settings."""
    return {
        "RERANKER": reranker,
        "RERANK_WEIGHT": weight,
        "RERANK_BLEND": blend,
        "RERANK_PROMPT": 2,
        "RERANK_READS": "text",
    }


def _reranked(label: str, reranker: str, weight: float, blend: str = "ranks") -> tuple:
    return (label, (*FAST, "rerank"), _rerank(reranker, weight, blend))


# name -> (label, stages, per-model overrides). The labels key the committed reports.
CONFIGS = {
    "fast": ("fast: learned ranker, no LLM", FAST, {}),
    "pointwise-0.3": _reranked("+ pointwise rerank, weight 0.3", "pointwise", 0.3),
    "pointwise-0.5": _reranked("+ pointwise rerank, weight 0.5", "pointwise", 0.5),
    "pointwise-1.0": _reranked("+ pointwise rerank, weight 1 (LLM order only)", "pointwise", 1.0),
    "scores-0.3": _reranked("+ pointwise rerank, score blend 0.3", "pointwise", 0.3, "scores"),
    "scores-0.5": _reranked("+ pointwise rerank, score blend 0.5", "pointwise", 0.5, "scores"),
    "listwise-0.5": _reranked("+ listwise rerank, weight 0.5", "listwise", 0.5),
    "hyde": ("+ S2: one short generated function (HyDE)", (*FAST, "S2"), {"CODEGEN": "short"}),
    "augment": ("+ S5: augmented query (one completion)", (*FAST, "S5"), {}),
    "all": (
        "all: S2 + S5 + pointwise rerank 0.5",
        (*FAST, "S2", "S5", "rerank"),
        {**_rerank("pointwise", 0.5), "CODEGEN": "short"},
    ),
}
DEFAULT_CONFIGS = "fast,pointwise-0.3,pointwise-0.5,pointwise-1.0,hyde,augment,all"


def sample(dataset, per_corpus: int | None, limit: int | None):
    """The first `per_corpus` queries of every corpus, or the first `limit` queries."""
    if per_corpus:
        counts: dict[str, int] = {}
        kept = []
        for query in dataset.queries:
            counts[query.corpus] = counts.get(query.corpus, 0) + 1
            if counts[query.corpus] <= per_corpus:
                kept.append(query)
        dataset.queries = kept
    elif limit:
        dataset.queries = dataset.queries[:limit]
    return dataset


def stage_latencies(report: dict) -> dict[str, float]:
    stages: dict[str, list[float]] = {}
    for entry in report["per_query"]:
        for stage, ms in entry.get("timings_ms", {}).items():
            stages.setdefault(stage, []).append(ms)
    return {k: round(statistics.median(v)) for k, v in stages.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=Path, default=Path("var/benchmarks/packages"))
    parser.add_argument("--cosqa", type=Path, help="cosqa-retrieval-dev-500.json")
    parser.add_argument("--per-package", type=int, default=10)
    parser.add_argument("--cosqa-queries", type=int, default=100)
    parser.add_argument("--configs", default=DEFAULT_CONFIGS)
    parser.add_argument(
        "--exclude-packages", default="", help="dev packages left out, comma-separated"
    )
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument(
        "--tag", default="", help="suffix for the report's name: a second run beside the first"
    )
    args = parser.parse_args()
    from benchmarks.common import setup_django

    setup_django(str(Path(args.data_dir).resolve()))
    from django.conf import settings

    from agents.backends import model_settings
    from agents.llm import configured_model
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.evaluation.runner import METRIC_KEYS, evaluate, paired_rows

    model = configured_model()
    excluded = [p for p in args.exclude_packages.split(",") if p]
    datasets = {
        "packages (dev)": sample(
            without_packages(load_dataset(args.packages / "dev.jsonl", "repo"), excluded),
            args.per_package,
            None,
        )
    }
    if args.cosqa:
        datasets["CoSQA dev"] = sample(load_dataset(args.cosqa, "cosqa"), None, args.cosqa_queries)
    names = args.configs.split(",")
    # Every configuration starts from the settings as loaded: overrides never carry over to the
    # next one (a blend mode left behind would change what a later row measures).
    loaded = settings.REPORIFT
    agents, base = loaded["AGENTS"], model_settings(model)
    sections, all_reports = [], {}
    for title, dataset in datasets.items():
        repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
        reports = {}
        for name in names:
            label, stages, overrides = CONFIGS[name]
            settings.REPORIFT = {
                **loaded,
                "AGENTS": {
                    **agents,
                    "AUGMENTER": "prompt",
                    "PER_MODEL": {**agents["PER_MODEL"], model: base | overrides},
                },
            }
            mode = "fast" if name == "fast" else "full"
            report = evaluate(dataset=dataset, mode=mode, stages=stages, repositories=repositories)
            report["stage_latency_p50_ms"] = stage_latencies(report)
            reports[label] = report
            print(
                f"{title} | {label} | S@1 {report['success@1']:.3f} MRR {report['mrr']:.3f}"
                f" | {report['stage_latency_p50_ms']}",
                flush=True,
            )
        rows = paired_rows(reports, baseline=CONFIGS["fast"][0], reference=CONFIGS["fast"][0])
        all_reports[title] = reports
        sections.append(section(title, dataset, rows, reports))
    slug = "".join(c if c.isalnum() else "-" for c in model) + (f"-{args.tag}" if args.tag else "")
    out = ROOT / "docs" / "eval" / f"llm-stages-{slug}.json"
    kept = (*METRIC_KEYS, "ci95", "latency_ms", "stage_latency_p50_ms", "per_query")
    body = {
        title: {label: {m: r[m] for m in kept} for label, r in reports.items()}
        for title, reports in all_reports.items()
    }
    out.write_text(json.dumps(body, indent=1))
    # The first part of BENCHMARKS reads the reports it names (benchmarks.run.LLM_ROWS).
    print(f"{model}: docs/eval/{out.name}\n\n" + "\n".join(sections))


def section(title: str, dataset, rows: list[dict], reports: dict) -> str:
    from search.evaluation.report import difference_cell

    lines = [
        f"### {title}: {len(dataset.queries)} queries",
        "",
        "| configuration | Success@1 | MRR | NDCG@10 | ΔS@1 vs fast | ΔMRR vs fast "
        "| p50 latency | LLM stages p50 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        report = reports[row["configuration"]]
        llm = {k: v for k, v in report["stage_latency_p50_ms"].items() if k in LLM_STAGES}
        lines.append(
            f"| {row['configuration']} | {row['success@1']:.3f} | {row['mrr']:.3f} "
            f"| {row['ndcg@10']:.3f} | {difference_cell(row, 'vs_baseline', 'success@1')} "
            f"| {difference_cell(row, 'vs_baseline', 'mrr')} "
            f"| {report['latency_ms']['p50'] / 1000:.1f} s "
            f"| {', '.join(f'{k} {v / 1000:.1f} s' for k, v in llm.items()) or '—'} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    main()
