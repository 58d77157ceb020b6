import sys
import time

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from indexing.models import IndexRun, Repository
from indexing.phase2 import execute as phase2_execute
from indexing.repository_names import name_from_source
from indexing.run_process import interruption, signals_interrupt
from indexing.selectors import nothing_to_read_message
from indexing.services import (
    index_run_execute,
    index_run_start,
    repository_create,
    run_process_gone,
)
from reporift.commands import DJANGO_OPTIONS
from reporift.words import plural


class Command(BaseCommand):
    help = "Index (or incrementally re-index) a repository: a local path, a git URL or an archive."
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("source", help="local directory, git URL (file:// too) or archive")
        parser.add_argument("--name", help="repository name (default: derived from the source)")
        parser.add_argument("--ref", default="", help="git branch, tag or commit")

    def handle(self, *args, source, name=None, ref="", **options):
        name = name or name_from_source(source)
        repository = Repository.objects.filter(name=name).first()
        if repository is None:
            try:
                repository = repository_create(name=name, source=source, ref=ref)
            except ValidationError as exc:
                why = "; ".join(exc.messages)
                raise CommandError(f"cannot create repository {name!r}: {why}") from exc
        elif ref and ref != repository.ref:
            repository.ref = ref
            repository.save(update_fields=["ref"])

        inline = bool(settings.CELERY_TASK_ALWAYS_EAGER)
        bar = tqdm(total=100, unit="%", file=sys.stderr, disable=None, leave=False)

        def show(run: IndexRun) -> None:
            bar.set_description(f"{repository.name}: {run.phase}")
            bar.update(run.percent - bar.n)

        with signals_interrupt():
            try:
                run = self._run(repository, inline=inline, show=show)
            except KeyboardInterrupt as exc:
                bar.close()
                raise CommandError(
                    f"indexing {repository.name} stopped: {interruption(exc)}; the run is marked "
                    "failed and the previous index keeps serving"
                ) from exc
        bar.close()
        if run.status != IndexRun.Status.SUCCEEDED:
            raise CommandError(f"{run.label} of {repository.name} failed: {run.error}")
        for warning in run.warnings[:20]:
            self.stderr.write(f"warning: {warning}")
        if len(run.warnings) > 20:
            more = plural(len(run.warnings) - 20, "more warning")
            self.stderr.write(f"... {more} in {run.label}")
        if nothing := nothing_to_read_message(run):
            # Not a success: a script that indexes and then searches would get "nothing
            # matched" for every question, with no hint that the index itself is empty.
            raise CommandError(
                f"{repository.name}: {nothing} in {source} (0 units); nothing to search"
            )
        # A local folder that is not a git checkout has no commit: said in words, not as "-".
        commit = f"commit {run.commit_sha[:10]}" if run.commit_sha else "no commit"
        self.stdout.write(
            f"indexed {repository.name}: {plural(run.units_total, 'unit')} in "
            f"{plural(run.files_total, 'file')} ({plural(run.files_reused, 'file')} unchanged, "
            f"{plural(run.units_embedded, 'unit')} embedded, "
            f"{plural(run.files_with_errors, 'file')} with parse errors), {commit}"
        )
        self._phase2(run, inline=inline)

    def _run(self, repository: Repository, *, inline: bool, show) -> IndexRun:
        """Start a run and see it to its end: here when inline, else following a worker's."""
        run = index_run_start(repository=repository, enqueue=not inline)
        if inline and run.status == IndexRun.Status.QUEUED:
            return index_run_execute(run=run, on_progress=show, phase2="later")
        if not run.is_finished:
            self.stderr.write(f"{_waiting_for(run)}; following its progress (Ctrl-C stops waiting)")
        while not run.is_finished:  # another process has it: follow its progress
            time.sleep(0.5)
            run.refresh_from_db()
            show(run)
            if not run.is_finished and run_process_gone(run):
                # Its process ended without finishing it: never wait on a run nobody runs.
                self.stderr.write(
                    f"the process running {run.label} (pid {run.runner_pid}) is gone; "
                    "starting a new run"
                )
                return self._run(repository, inline=inline, show=show)
        return run

    def _phase2(self, run: IndexRun, *, inline: bool) -> None:
        """Searchable already; the transformer's vectors follow, here or on a worker."""
        Phase2 = IndexRun.Phase2
        if run.phase2_status not in (Phase2.PENDING, Phase2.RUNNING):
            if run.phase2_status in (Phase2.SKIPPED, Phase2.FAILED):
                self.stderr.write(f"phase 2 {run.phase2_status}: {run.phase2_error}")
            return
        self.stdout.write(
            f"searchable now (phase 1, static vectors); adding the transformer's vectors to "
            f"{plural(run.phase2_units_total, 'unit')} (phase 2)"
        )
        self.stdout.flush()
        bar = tqdm(
            total=run.phase2_units_total, unit="units", file=sys.stderr, disable=None, leave=False
        )

        def show(current: IndexRun) -> None:
            bar.set_description(f"{run.repository.name}: phase 2")
            bar.update(current.phase2_units_embedded - bar.n)

        if inline:
            with signals_interrupt():
                try:
                    phase2_execute(run_id=run.pk, on_progress=show)
                except KeyboardInterrupt as exc:
                    bar.close()
                    raise CommandError(
                        f"phase 2 of {run.label} stopped: {interruption(exc)}; phase 1 keeps "
                        "answering and the next index or `manage.py phase2` resumes it"
                    ) from exc
        while run.phase2_status in (Phase2.PENDING, Phase2.RUNNING):  # a worker has it
            time.sleep(0.5)
            run.refresh_from_db()
            show(run)
        run.refresh_from_db()
        bar.close()
        if run.phase2_status != Phase2.DONE:
            raise CommandError(f"phase 2 of {run.label} {run.phase2_status}: {run.phase2_error}")
        self.stdout.write(
            f"phase 2 done: searches of {run.repository.name} use {run.embedder_model}"
        )


def _waiting_for(run: IndexRun) -> str:
    if run.runner_pid is not None:
        who = f"process {run.runner_pid} on {run.runner_host}"
    else:
        who = "a worker" if run.status == IndexRun.Status.RUNNING else "a worker to take it"
    since = f", started {run.started_at:%H:%M:%S}" if run.started_at else ""
    return f"{run.label} of {run.repository.name} is already {run.status} ({who}{since})"
