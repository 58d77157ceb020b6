import re
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from indexing.models import IndexRun, Repository
from indexing.services import index_run_execute
from indexing.sync import repository_sync, sync_due
from reporift.commands import DJANGO_OPTIONS

_INTERVAL = re.compile(r"^(\d+)\s*([smh]?)$")


def parse_interval(text: str) -> int:
    """'15m' -> 900 seconds ('90' is seconds, '2h' hours)."""
    match = _INTERVAL.match(text.strip().lower())
    if not match or int(match.group(1)) == 0:
        raise CommandError(f"not an interval: {text!r} (e.g. 30s, 15m, 2h)")
    return int(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


class Command(BaseCommand):
    help = (
        "Follow git remotes: index the repositories whose remote head moved. Without names, "
        "the repositories whose schedule says they are due (for cron); --every loops."
    )
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []  # checks run with `reporift serve` (migrate), not per command

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="*", help="these repositories, due or not")
        parser.add_argument("--every", help="repeat forever at this interval (e.g. 15m)")
        parser.add_argument(
            "--schedule",
            help="set the named repositories' schedule: an interval (e.g. 15m) or 'manual'",
        )

    def handle(self, *args, names, every=None, schedule=None, **options):
        if schedule is not None:
            self._set_schedule(names, schedule)
            return
        pause = parse_interval(every) if every else None
        while True:
            self._one_pass(names)
            if pause is None:
                return
            time.sleep(pause)

    def _set_schedule(self, names: list[str], schedule: str) -> None:
        if not names:
            raise CommandError("name the repositories whose schedule to set")
        minutes = None if schedule == "manual" else max(1, parse_interval(schedule) // 60)
        for name in names:
            updated = Repository.objects.filter(name=name, source_kind="git").update(
                sync_every_minutes=minutes, next_check_at=None
            )
            if not updated:
                raise CommandError(f"no git repository named {name!r}")
            self.stdout.write(f"{name}: {'manual' if minutes is None else f'every {minutes} min'}")

    def _one_pass(self, names: list[str]) -> None:
        # Without workers the runs are done here, in order; with workers they are queued.
        inline = settings.CELERY_TASK_ALWAYS_EAGER
        if names:
            repositories = list(Repository.objects.filter(name__in=names))
            missing = set(names) - {r.name for r in repositories}
            if missing:
                raise CommandError(f"no repository named {', '.join(sorted(missing))}")
            outcomes = [
                repository_sync(repository=r, trigger="command", enqueue=not inline)
                for r in repositories
            ]
        else:
            outcomes = sync_due(trigger="command", enqueue=not inline)
        for outcome in outcomes:
            line = f"{outcome.repository}: {outcome.state}"
            if outcome.remote_head:
                line += f" (remote at {outcome.remote_head[:10]})"
            if outcome.detail:
                line += f": {outcome.detail}"
            self.stdout.write(line)
            if inline and outcome.state == "started" and outcome.run_id:
                run = index_run_execute(run=IndexRun.objects.get(pk=outcome.run_id))
                detail = f"commit {run.commit_sha[:10]}" if run.commit_sha else run.error
                self.stdout.write(f"{outcome.repository}: {run.label} {run.status}, {detail}")
        if not outcomes:
            self.stdout.write("nothing due")
