import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from reporift.commands import DJANGO_OPTIONS
from search.evaluation.datasets import FORMATS, DatasetError, load_dataset
from search.evaluation.issues import SYSTEMS as ISSUE_SYSTEMS
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
        parser.add_argument("--format", choices=(*FORMATS, "issues"), default="repo", dest="fmt")
        parser.add_argument(
            "--mirrors",
            default=os.environ.get("REPORIFT_GIT_MIRRORS", ""),
            help="issues format: a folder of bare git mirrors, <owner>+<name>/repo "
            "(default: REPORIFT_GIT_MIRRORS)",
        )
        parser.add_argument(
            "--systems",
            default=",".join(ISSUE_SYSTEMS),
            help="issues format: which of locate, search, bm25-files, embedder to run",
        )
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
            "--warm",
            action="store_true",
            help="warm each corpus's repository before its first question, as a server that "
            "holds it does when it starts (latencies then are a warmed server's)",
        )
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
        warm: bool = False,
        **options,
    ):
        if fmt == "issues":
            return self._issues(dataset, part, phase, out, options)
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
                    dataset=data,
                    k=k,
                    mode=mode,
                    stages=chosen,
                    limit=limit,
                    phase=phase,
                    warm=warm,
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
        if "per_repository" in report:
            # The deciding figure (file NDCG@10 averaged per repository) and the span one.
            summary["per_repository"] = report["per_repository"]["all"]
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

    def _issues(self, dataset, part, phase, out, options) -> None:
        """Issue text, repository at its base commit, the fixed files (search.evaluation.issues):
        file Acc@k and MRR per system, with intervals, per language and per issue."""
        from search.evaluation.issue_rows import load_issue_rows
        from search.evaluation.issues import evaluate_issues

        if not options.get("mirrors"):
            raise CommandError("the issues format needs --mirrors (or REPORIFT_GIT_MIRRORS)")
        systems = [s.strip() for s in options["systems"].split(",") if s.strip()]
        unknown = set(systems) - set(ISSUE_SYSTEMS)
        if unknown:
            raise CommandError(f"unknown systems {sorted(unknown)}; known: {ISSUE_SYSTEMS}")
        try:
            rows = load_issue_rows(Path(dataset), part)
            report = evaluate_issues(
                rows,
                mirrors=Path(options["mirrors"]),
                systems=systems,
                phase=phase,
                progress=self.stderr.write,
                # Resumable: each issue's result is kept beside the report as it comes.
                checkpoint=Path(f"{out}.partial.jsonl") if out else None,
            )
        except DatasetError as exc:
            raise CommandError(str(exc)) from exc
        overall = report["overall"]
        for system in systems:
            figures = overall[system]
            self.stdout.write(
                f"{system:>11}: "
                + "  ".join(
                    f"{key} {figures[key]['mean']:.3f} [{figures[key]['ci95'][0]:.3f}, "
                    f"{figures[key]['ci95'][1]:.3f}]"
                    for key in ("acc@1", "acc@5", "acc@10", "mrr")
                )
            )
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(json.dumps(report, indent=1))
            self.stderr.write(f"wrote {out}")


def ablate_stages(data, k, mode, chosen, limit):
    stages = chosen or (FULL_STAGES if mode == "full" else FAST_STAGES)
    return ablate(dataset=data, k=k, mode=mode, stages=stages, limit=limit)


def _stage(name: str) -> str:
    name = name.strip()
    return name.lower() if name.lower() in ("ranker", "rerank") else name.upper()
