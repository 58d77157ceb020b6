import json

from django.core.management.base import BaseCommand, CommandError

from indexing.models import Repository
from search.presenters import result_as_dict
from search.services import MODES, SearchError, search


class Command(BaseCommand):
    help = (
        "Search an indexed repository in plain language: `search NAME QUERY`, or a local "
        "working tree with no setup: `search --path DIR QUERY` (indexed at first use, kept up "
        "to date at every call)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="repository name (with --path: the query)")
        parser.add_argument("query", nargs="?")
        parser.add_argument(
            "--path",
            help="search this directory instead of a named repository: the first call indexes "
            "it (static vectors in seconds, then the transformer's), later calls see edits",
        )
        parser.add_argument(
            "--no-phase2",
            action="store_true",
            help="with --path: answer and exit, leaving the transformer's vectors for later",
        )
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--mode", choices=MODES, default="fast")
        parser.add_argument("--json", action="store_true", help="print a JSON list, best first")

    def handle(self, *args, name, query, k, mode, json: bool = False, path=None, **options):
        if path:
            if query is not None:
                raise CommandError("with --path give only the query")
            query, repository = name, self._working_tree(path)
        else:
            if query is None:
                raise CommandError("give a repository name and a query (or --path DIR QUERY)")
            repository = Repository.objects.filter(name=name).first()
            if repository is None:
                raise CommandError(f"no repository named {name!r}")
        self._answer(repository, query, k=k, mode=mode, as_json=json)
        if path and not options["no_phase2"]:
            self._finish_phase2(repository)

    def _working_tree(self, path: str) -> Repository:
        from indexing.services import IndexingError
        from indexing.working_tree import open_working_tree

        try:
            repository, run = open_working_tree(path=path, phase2="later")
        except IndexingError as exc:
            raise CommandError(str(exc)) from exc
        if run is not None:
            self.stderr.write(
                f"indexed {path}: {run.units_total} units, {run.files_total - run.files_reused} "
                f"files parsed"
            )
        return repository

    def _finish_phase2(self, repository: Repository) -> None:
        """After the answer: the transformer's vectors, so that the next call ranks with them."""
        from indexing.models import IndexRun
        from indexing.phase2 import execute, waiting

        repository.refresh_from_db()
        run = repository.active_run
        if run is None or not waiting(run):
            return
        self.stderr.write(
            f"adding the transformer's vectors for later searches ({run.phase2_units_total} "
            "units; Ctrl-C to leave them for the next call)"
        )
        try:
            self.stderr.write(f"phase 2: {execute(run_id=run.pk)}")
        except KeyboardInterrupt:
            # What is embedded stays recorded; the next call goes on from there.
            IndexRun.objects.filter(pk=run.pk).update(phase2_status=IndexRun.Phase2.PENDING)
            self.stderr.write("phase 2 left for the next call")

    def _answer(self, repository: Repository, query: str, *, k, mode, as_json) -> None:
        try:
            response = search(repository=repository, query=query, k=k, mode=mode)
        except SearchError as exc:
            raise CommandError(str(exc)) from exc
        for notice in response.notices:
            self.stderr.write(f"note: {notice}")
        rows = [result_as_dict(r) for r in response.results]
        if as_json:
            self.stdout.write(_json_dumps(rows))
            self.stdout.flush()
            return
        for row in rows:
            self.stdout.write(
                f"{row['rank']:>3}. {row['qualname']}  ({row['kind']})  "
                f"{row['path']}:{row['start_line']}-{row['end_line']}  "
                f"score={row['score']:.4f}  [{','.join(row['streams'])}]"
            )
        self.stdout.flush()
        self.stderr.write(
            f"{response.mode_used} mode, phase {response.index_phase}, "
            f"{response.timings_ms['total']:.0f} ms"
        )


def _json_dumps(rows) -> str:
    return json.dumps(rows, indent=2)
