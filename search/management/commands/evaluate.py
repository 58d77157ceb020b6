import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from search.evaluation.datasets import FORMATS, DatasetError, load_dataset
from search.evaluation.report import ablation_plot, ablation_table
from search.evaluation.runner import METRIC_KEYS, ablate, evaluate
from search.services import FAST_STREAMS, FULL_STAGES, MODES


class Command(BaseCommand):
    help = "Evaluate search on a labelled dataset: Success@k, MRR, NDCG@10, MAP, recall, latency."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset file or directory")
        parser.add_argument("--format", choices=FORMATS, default="repo", dest="fmt")
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--mode", choices=MODES, default="fast")
        parser.add_argument(
            "--streams",
            help="comma-separated stages, e.g. S1,S4 or S1,S2,S3,S4,S5,rerank (default: the "
            "mode's; naming LLM stages runs them even where the model's defaults turn them off)",
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
        streams=None,
        out=None,
        limit=None,
        ablate: bool = False,
        **options,
    ):
        chosen = tuple(_stage(s) for s in streams.split(",")) if streams else None
        if chosen and not set(chosen) <= set(FULL_STAGES):
            raise CommandError(f"unknown streams in {streams!r}; known: {','.join(FULL_STAGES)}")
        try:
            data = load_dataset(dataset, fmt)
            report = evaluate(dataset=data, k=k, mode=mode, streams=chosen, limit=limit)
            if ablate:
                rows = ablate_streams(data, k, mode, chosen, limit)
                report["ablation"] = rows
        except DatasetError as exc:
            raise CommandError(str(exc)) from exc
        summary = {key: report[key] for key in ("n_queries", *METRIC_KEYS)}
        self.stdout.write(json.dumps(summary | {"latency_ms": report["latency_ms"]}, indent=2))
        if ablate:
            self.stdout.write(ablation_table(report["ablation"]))
        if out:
            out_path = Path(out)
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(report, indent=1))
            if ablate:
                table = out_path.with_suffix(".ablation.md")
                table.write_text(ablation_table(report["ablation"]) + "\n")
                plot = ablation_plot(
                    report["ablation"],
                    out_path.with_suffix(".ablation.png"),
                    f"{data.name} ({mode} mode, {report['n_queries']} queries)",
                )
                self.stderr.write(f"wrote {out_path}, {table} and {plot}")
            else:
                self.stderr.write(f"wrote {out_path}")


def ablate_streams(data, k, mode, chosen, limit):
    streams = chosen or (FULL_STAGES if mode == "full" else FAST_STREAMS)
    return ablate(dataset=data, k=k, mode=mode, streams=streams, limit=limit)


def _stage(name: str) -> str:
    name = name.strip()
    return "rerank" if name.lower() == "rerank" else name.upper()
