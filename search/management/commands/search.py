import json

from django.core.management.base import BaseCommand, CommandError

from indexing.models import Repository
from search.presenters import result_as_dict
from search.services import MODES, SearchError, search


class Command(BaseCommand):
    help = "Search an indexed repository in plain language."

    def add_arguments(self, parser):
        parser.add_argument("name", help="repository name")
        parser.add_argument("query")
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--mode", choices=MODES, default="fast")
        parser.add_argument("--json", action="store_true", help="print a JSON list, best first")

    def handle(self, *args, name, query, k, mode, json: bool = False, **options):
        repository = Repository.objects.filter(name=name).first()
        if repository is None:
            raise CommandError(f"no repository named {name!r}")
        try:
            response = search(repository=repository, query=query, k=k, mode=mode)
        except SearchError as exc:
            raise CommandError(str(exc)) from exc
        for notice in response.notices:
            self.stderr.write(f"note: {notice}")
        rows = [result_as_dict(r) for r in response.results]
        if json:
            self.stdout.write(_json_dumps(rows))
            return
        for row in rows:
            self.stdout.write(
                f"{row['rank']:>3}. {row['qualname']}  ({row['kind']})  "
                f"{row['path']}:{row['start_line']}-{row['end_line']}  "
                f"score={row['score']:.4f}  [{','.join(row['streams'])}]"
            )
        self.stderr.write(f"{response.mode_used} mode, {response.timings_ms['total']:.0f} ms")


def _json_dumps(rows) -> str:
    return json.dumps(rows, indent=2)
