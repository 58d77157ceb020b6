import json

from django.core.management.base import BaseCommand, CommandError

from indexing.models import CodeUnit, Repository
from reporift.commands import DJANGO_OPTIONS
from reporift.words import elide_middle, plural
from search.answer import answer
from search.params import ParamError, SearchRequest, search_params, unknown_repository_message
from search.presenters import result_for_api
from search.services import MODES, SearchError


class Command(BaseCommand):
    help = (
        "Search an indexed repository in plain language: `search NAME QUERY`, or a local "
        "working tree with no setup: `search --path DIR QUERY` (indexed at first use, kept up "
        "to date at every call)."
    )
    # The checks import every URL module (the API and its schemas): half a second that a
    # one-shot search does not need.
    requires_system_checks = []
    suppressed_base_arguments = DJANGO_OPTIONS

    def add_arguments(self, parser):
        parser.add_argument("name", help="repository name (with --path: the query)")
        parser.add_argument("query", nargs="?", help="what to look for, in plain words")
        add_working_tree_arguments(parser)
        parser.add_argument(
            "--k", type=int, default=10, metavar="N", help="how many results (default 10)"
        )
        parser.add_argument(
            "--mode",
            choices=MODES,
            default="fast",
            help="fast: no language model, milliseconds (default); full: adds the LLM stages",
        )
        add_filter_arguments(parser)
        parser.add_argument(
            "--kind",
            action="append",
            choices=CodeUnit.Kind.values,
            default=[],
            help="only units of this kind (repeat for several)",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help="print a JSON list, best first: the API's result rows (reason, excerpt with "
            "line numbers, signature, unit id...)",
        )

    def handle(self, *args, name, query, k, mode, json: bool = False, path=None, **options):
        query = what_to_look_for(name, query, path=path, what="query")
        # Checked as every client's parameters are, with the same messages (search.params).
        raw = {
            "q": query,
            "k": k,
            "mode": mode,
            "path": options.get("files"),
            "kind": options.get("kind"),
            "exclude_tests": options.get("exclude_tests"),
            "lang": options.get("lang"),
        }
        try:
            checked = search_params(raw)
        except ParamError as exc:
            raise CommandError(str(exc)) from None
        repository = self._repository(name, path)
        self._answer(repository, checked, as_json=json)
        if path and not options["no_phase2"]:
            self._phase2_detached(repository)

    def _repository(self, name: str | None, path: str | None) -> Repository:
        """The working tree at `path` (indexed or brought up to date first), or the repository
        called `name`, refused with the closest names there are."""
        if path:
            return self._working_tree(path)
        repository = Repository.objects.filter(name=name).first()
        if repository is None:
            names = Repository.objects.values_list("name", flat=True)
            raise CommandError(unknown_repository_message(name, names))
        return repository

    def _working_tree(self, path: str) -> Repository:
        from indexing.services import IndexingError
        from indexing.working_tree import open_working_tree

        try:
            repository, run = open_working_tree(path=path, phase2="later")
        except IndexingError as exc:
            raise CommandError(str(exc)) from exc
        if run is not None:
            parsed = run.files_total - run.files_reused
            self.stderr.write(
                f"indexed {path}: {plural(run.units_total, 'unit')}, "
                f"{plural(parsed, 'file')} parsed"
            )
        return repository

    def _phase2_detached(self, repository: Repository) -> None:
        """After the answer: the transformer's vectors, in a process of their own, so that this
        call exits now and a later one ranks with them."""
        from indexing.working_tree import phase2_detached

        started = phase2_detached(repository)
        if started is not None:
            self.stderr.write(
                "adding the transformer's vectors to "
                f"{plural(started.phase2_units_total, 'unit')} in the background; "
                "later searches use them"
            )

    def _answer(self, repository, checked: SearchRequest, *, as_json) -> None:
        try:
            response = answer(repository=repository, **checked.search_arguments())
        except SearchError as exc:
            raise CommandError(str(exc)) from exc
        for notice in response.notices:
            self.stderr.write(f"note: {notice}")
        if response.lines is not None:
            # A "literal", /pattern/ or symbol: the matching lines, as `reporift grep` gives them.
            self._lines(response, as_json=as_json)
            return
        rows = [result_for_api(r, response.query) for r in response.results]
        if as_json:
            self.stdout.write(_json_dumps(rows))
            self.stdout.flush()
            return
        for row in rows:
            self.stdout.write(
                f"{row['rank']:>3}. {elide_middle(row['qualname'])}  ({row['kind']})  "
                f"{row['path']}:{row['start_line']}-{row['end_line']}  "
                f"score={row['score']:.4f}  [{','.join(row['streams'])}]"
            )
        self.stdout.flush()
        self.stderr.write(
            f"{response.mode_used} mode, phase {response.index_phase}, "
            f"{response.timings_ms['total']:.0f} ms"
        )

    def _lines(self, response, *, as_json) -> None:
        from search.exact_presenters import hit_as_dict

        hits = response.lines.hits
        if as_json:
            self.stdout.write(_json_dumps([hit_as_dict(h) for h in hits]))
        for hit in [] if as_json else hits:
            where = f"    [{hit.unit.qualname}]" if hit.unit is not None else ""
            self.stdout.write(f"{hit.path}:{hit.line}:{hit.text}{where}")
        self.stdout.flush()
        self.stderr.write(
            f"{response.lines.total} matching lines, {len(hits)} shown "
            f"({response.lines.narrowed_by}), {response.timings_ms['total']:.0f} ms"
        )


def what_to_look_for(name: str, second: str | None, *, path: str | None, what: str) -> str:
    """The query (or pattern) of `NAME QUERY`, or of `--path DIR QUERY`, where it comes first."""
    if path:
        if second is not None:
            raise CommandError(f"with --path give only the {what}")
        return name
    if second is None:
        raise CommandError(f"give a repository name and a {what} (or --path DIR {what.upper()})")
    return second


def add_working_tree_arguments(parser) -> None:
    """`--path DIR` instead of a named repository, as `search` and `locate` take it."""
    parser.add_argument(
        "--path",
        metavar="DIR",
        help="look in this directory instead of a named repository: the first call indexes "
        "it (static vectors in seconds); the transformer's vectors follow in a detached "
        "process, and later calls see edits",
    )
    parser.add_argument(
        "--no-phase2",
        action="store_true",
        help="with --path: do not start the transformer's vectors after answering",
    )


def add_filter_arguments(parser) -> None:
    """The filters `search` and `locate` share: path, tests, language (the API's words)."""
    parser.add_argument(
        "--files",
        metavar="PATH",
        default="",
        help="only files under this path prefix (pkg/sub/) or matching this glob "
        "(*/models.py): the API's `path`",
    )
    parser.add_argument(
        "--exclude-tests", action="store_true", help="leave out test files and folders"
    )
    parser.add_argument(
        "--lang",
        action="append",
        default=[],
        metavar="LANG",
        help="only this language (go, typescript, markdown...; repeat or give a comma list)",
    )


def _json_dumps(rows) -> str:
    return json.dumps(rows, indent=2, default=str)
