from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from indexing.models import Repository
from labels.agents import METHODS
from labels.services import LabelError, label_run_execute
from reporift.commands import DJANGO_OPTIONS
from reporift.words import plural


class Command(BaseCommand):
    help = (
        "Label an indexed repository for evaluation, CoSQA+'s way: queries (given or generated), "
        "candidates from several rankers, then test-driven LLM agents whose programs run in "
        "the sandbox. Writes query.json, codebase.json, pairs.json and trail.jsonl into --out "
        "(score it with: evaluate OUT --format cosqa-plus). Interrupted? Run it again."
    )
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []  # checks run with `reporift serve` (migrate), not per command

    def add_arguments(self, parser):
        parser.add_argument("repository", help="name of an indexed repository")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--queries", type=Path, help="JSON list or one query per line")
        source.add_argument(
            "--generate",
            type=int,
            metavar="N",
            help="N queries from the repository: docstring first sentences and LLM questions",
        )
        parser.add_argument("--out", type=Path, required=True, help="output directory")
        parser.add_argument(
            "--candidates", type=int, default=20, help="top results taken from each ranker"
        )
        parser.add_argument(
            "--method",
            choices=METHODS,
            help="agents: screener, tests in the sandbox, fixer, arbiter; judge: one LLM call "
            "(default: the path measured better for the configured model; agents if unmeasured)",
        )

    def handle(self, *args, repository, queries, generate, out, candidates, method, **options):
        try:
            repo = Repository.objects.get(name=repository)
        except Repository.DoesNotExist as exc:
            raise CommandError(f"no repository named {repository!r}") from exc
        bar = tqdm(total=0, unit="pair", desc="labelling", disable=options["verbosity"] == 0)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            run = label_run_execute(
                repository=repo,
                out_dir=out,
                queries_file=queries,
                generate=generate or 0,
                depth=candidates,
                method=method,
                progress=progress,
            )
        except LabelError as exc:
            raise CommandError(str(exc)) from exc
        except KeyboardInterrupt as exc:
            raise CommandError(
                "interrupted; run the same command again to continue where it stopped"
            ) from exc
        finally:
            bar.close()
        self.stdout.write(
            f"{plural(run.queries, 'query', 'queries')}, "
            f"{run.pairs_done}/{plural(run.pairs_total, 'pair')} labelled "
            f"({run.positives} relevant), tests executable {run.tests_executable}/"
            f"{run.tests_run}; {run.out_dir}"
        )
        if run.error:
            self.stderr.write(run.error)
