import signal

from django.core.management.base import BaseCommand, CommandError

from indexing.models import Repository
from indexing.phase2 import background_work_of, execute, request_stop, waiting
from reporift.commands import DJANGO_OPTIONS


class Command(BaseCommand):
    help = (
        "Add the transformer's vectors that a repository's searchable index still lacks (phase "
        "2), in this process: what `search --path` leaves to a detached process, and what an "
        "index run interrupted before its phase 2 ended needs."
    )
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("name", help="repository name")

    def handle(self, *args, name, **options):
        repository = Repository.objects.filter(name=name).select_related("active_run").first()
        if repository is None:
            raise CommandError(f"no repository named {name!r}")
        run = repository.active_run
        if run is None:
            raise CommandError(f"repository {name!r} has no finished index yet")
        if not waiting(run):
            background_work_of(run_id=run.pk)  # an index made before it was added: done now
            self.stdout.write(f"phase 2 of {run.label}: {run.phase2_status or 'not needed'}")
            return
        # Ctrl-C or SIGTERM: stop at the next batch, hand the claim back, exit normally.
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, lambda *_: request_stop())
        status = execute(run_id=run.pk)
        run.refresh_from_db()
        self.stdout.write(f"phase 2 of {run.label}: {status} {run.phase2_error}".rstrip())
