import json
import sys

from django.core.management.base import CommandError

from reporift.words import elide_middle
from search.management.commands.search import Command as SearchCommand
from search.management.commands.search import add_filter_arguments, add_working_tree_arguments
from search.params import LOCATE_PARAMS, ParamError, search_params
from search.presenters import located_for_api
from search.services import SearchError


class Command(SearchCommand):
    help = (
        "Paste an issue, get the files to change: `locate NAME --issue FILE` (or the issue on "
        "standard input), or a working tree: `locate --path DIR --issue FILE`. The issue as "
        "written (title, prose, traceback, snippets), up to 32,000 characters."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", help="repository name (not with --path)")
        parser.add_argument(
            "--issue",
            metavar="FILE",
            help="a file holding the issue's text; '-' or nothing: standard input",
        )
        add_working_tree_arguments(parser)
        parser.add_argument(
            "--k", type=int, default=10, metavar="N", help="how many files (default 10)"
        )
        parser.add_argument(
            "--mode",
            choices=("fast", "full"),
            default="fast",
            help="full: an LLM also names suspects (slower)",
        )
        add_filter_arguments(parser)
        parser.add_argument(
            "--json",
            action="store_true",
            help="print the API's answer: files with reasons, units and lines, and the clues",
        )

    def handle(self, *args, name=None, issue=None, path=None, k=10, json=False, **options):
        if bool(path) == bool(name):
            raise CommandError("give a repository name or --path DIR (one of them)")
        text = self._issue_text(issue)
        raw = {
            "issue": text,
            "k": k,
            "mode": options.get("mode"),
            "path": options.get("files"),
            "exclude_tests": options.get("exclude_tests"),
            "lang": options.get("lang"),
        }
        try:
            checked = search_params(raw, LOCATE_PARAMS)
        except ParamError as exc:
            raise CommandError(str(exc)) from None
        repository = self._repository(name, path)
        from search.locate import clue_summary, locate_files

        try:
            located = locate_files(repository=repository, **checked.locate_arguments())
        except SearchError as exc:
            raise CommandError(str(exc)) from exc
        for notice in located.notices:
            self.stderr.write(f"note: {notice}")
        if json:
            self.stdout.write(_dumps(located_for_api(located)))
        else:
            for file in located.files:
                self.stdout.write(f"{file.rank:>3}. {file.path}  ({'; '.join(file.reasons)})")
                for result in file.units:
                    unit = result.unit
                    self.stdout.write(
                        f"       {unit.start_line}-{unit.end_line}  "
                        f"{elide_middle(unit.qualname, 70)} ({unit.kind})"
                    )
            self.stderr.write(
                f"read: {clue_summary(located.clues) or 'prose only'}; "
                f"{located.timings_ms['total']:.0f} ms"
            )
        self.stdout.flush()
        if path and not options.get("no_phase2"):
            self._phase2_detached(repository)

    def _issue_text(self, issue: str | None) -> str:
        if issue in (None, "-"):
            if issue is None and sys.stdin.isatty():
                raise CommandError("give the issue: --issue FILE, or pipe it in")
            return sys.stdin.read()
        try:
            with open(issue, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {issue}: {exc.strerror}") from exc


def _dumps(data) -> str:
    return json.dumps(data, indent=2, default=str)
