import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from reporift.commands import DJANGO_OPTIONS
from search.evaluation.datasets import FORMATS, DatasetError, load_dataset
from search.evaluation.metrics import FILE_KEYS
from search.evaluation.questions import PARTS
from search.evaluation.report import (
    ablation_plot,
    ablation_table,
    per_query_diff,
    per_query_diff_markdown,
)
from search.evaluation.runner import METRIC_KEYS, ablate, evaluate
from search.services import FAST_STAGES, FULL_STAGES, MODES


class Command(BaseCommand):
    help = "Evaluate search on a labelled dataset: Success@k, MRR, NDCG@10, MAP, recall, latency."
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []  # checks run with `reporift serve` (migrate), not per command

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset file or directory")
        parser.add_argument("--format", choices=FORMATS, default="repo", dest="fmt")
        parser.add_argument(
            "--part",
            choices=PARTS,
            default="tune",
            help="questions format: the tuning rows, the held-apart fifth, or all",
        )
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--mode", choices=MODES, default="fast")
        parser.add_argument(
            "--stages",
            "--streams",
            dest="stages",
            help="comma-separated stages, e.g. S1 (plain embedder), S1,S6,S4,ranker (fast mode) "
            "or S1,S2,S3,S4,S5,S6,ranker,rerank (default: the mode's; naming LLM stages runs "
            "them even where the model's defaults turn them off)",
        )
        parser.add_argument(
            "--phase",
            type=int,
            choices=(1, 2),
            help="1: answer with phase 1's static vectors, as between the two phases of "
            "indexing (the index keeps them after phase 2, so both phases pair on one index)",
        )
        parser.add_argument("--out", help="write the JSON report here")
        parser.add_argument("--limit", type=int, help="evaluate only the first N queries")
        parser.add_argument(
            "--ablate",
            action="store_true",
            help="also run each stream alone and each leave-one-out",
        )

    def handle(
        self,
        *args,
        dataset,
        fmt,
        k,
        mode,
        stages=None,
        out=None,
        limit=None,
        ablate: bool = False,
        part: str = "tune",
        phase: int | None = None,
        **options,
    ):
        chosen = tuple(_stage(s) for s in stages.split(",")) if stages else None
        if chosen and not set(chosen) <= set(FULL_STAGES):
            raise CommandError(f"unknown stages in {stages!r}; known: {','.join(FULL_STAGES)}")
        try:
            data = load_dataset(dataset, fmt, part=part)
            if ablate:
                rows, reports = ablate_stages(data, k, mode, chosen, limit)
                best = rows[-1]["configuration"]
                report = reports[best] | {"ablation": rows}
                if "S1 only" in reports:
                    report["diff_vs_S1_only"] = per_query_diff(reports[best], reports["S1 only"])
            else:
                report = evaluate(
                    dataset=data, k=k, mode=mode, stages=chosen, limit=limit, phase=phase
                )
                report["phase"] = phase or 2
        except DatasetError as exc:
            raise CommandError(str(exc)) from exc
        summary = {
            key: report[key]
            for key in ("n_queries", *METRIC_KEYS, *FILE_KEYS, "ci95")
            if key in report
        }
        for breakdown in ("by_kind", "by_language"):
            if breakdown in report:
                summary[breakdown] = report[breakdown]
        self.stdout.write(json.dumps(summary | {"latency_ms": report["latency_ms"]}, indent=2))
        if ablate:
            self.stdout.write(ablation_table(report["ablation"]))
            if "diff_vs_S1_only" in report:
                self.stdout.write(
                    per_query_diff_markdown(report["diff_vs_S1_only"], "all stages", "S1 alone")
                )
        if out:
            out_path = Path(out)
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(report, indent=1))
            if ablate:
                table = out_path.with_suffix(".ablation.md")
                diff = report.get("diff_vs_S1_only")
                table.write_text(
                    ablation_table(report["ablation"])
                    + "\n\n"
                    + (per_query_diff_markdown(diff, "all stages", "S1 alone") if diff else "")
                    + "\n"
                )
                plot = ablation_plot(
                    report["ablation"],
                    out_path.with_suffix(".ablation.png"),
                    f"{data.name} ({mode} mode, {report['n_queries']} queries)",
                )
                self.stderr.write(f"wrote {out_path}, {table} and {plot}")
            else:
                self.stderr.write(f"wrote {out_path}")


def ablate_stages(data, k, mode, chosen, limit):
    stages = chosen or (FULL_STAGES if mode == "full" else FAST_STAGES)
    return ablate(dataset=data, k=k, mode=mode, stages=stages, limit=limit)


def _stage(name: str) -> str:
    name = name.strip()
    return name.lower() if name.lower() in ("ranker", "rerank") else name.upper()
