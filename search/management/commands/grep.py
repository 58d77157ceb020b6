import json

from django.core.management.base import CommandError

from search.answer import answer
from search.exact_presenters import hit_as_dict
from search.management.commands.search import Command as SearchCommand
from search.management.commands.search import (
    add_filter_arguments,
    add_working_tree_arguments,
    what_to_look_for,
)
from search.params import ParamError, search_params
from search.query_syntax import grep_query
from search.services import SearchError


class Command(SearchCommand):
    help = (
        "The lines of an indexed repository that match a regular expression (RE2, as ripgrep "
        "reads it) or a literal (-F), each with the function, method or class around it, from "
        "the exact index: `grep NAME PATTERN`, or a local working tree with no setup: "
        "`grep --path DIR PATTERN`. It asks what the search box asks for /PATTERN/."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="repository name (with --path: the pattern)")
        parser.add_argument("pattern", nargs="?", help="a regular expression, or with -F a literal")
        add_working_tree_arguments(parser)
        parser.add_argument(
            "-F", "--fixed-strings", action="store_true", help="the pattern is a literal string"
        )
        parser.add_argument("-i", "--ignore-case", action="store_true", help="any case")
        parser.add_argument(
            "--words",
            default="",
            help="order the lines by what these words mean (the units a search ranks first)",
        )
        parser.add_argument(
            "--limit", type=int, default=100, metavar="N", help="lines shown (default 100)"
        )
        parser.add_argument(
            "--group",
            choices=("unit", "file"),
            default="unit",
            help="file: each file once with its count, then its lines",
        )
        add_filter_arguments(parser)
        parser.add_argument(
            "--json",
            action="store_true",
            help="print a JSON list of the matching lines: path, line, text, ranges, context, "
            "the unit around it (the API's `lines.hits` rows)",
        )

    def handle(self, *args, name, pattern, json: bool = False, path=None, **options):
        pattern = what_to_look_for(name, pattern, path=path, what="pattern")
        try:
            query = grep_query(
                pattern,
                fixed=options["fixed_strings"],
                ignore_case=options["ignore_case"],
                words=options["words"],
            )
            checked = search_params(
                {
                    "q": query,
                    "limit": options["limit"],
                    "path": options.get("files"),
                    "exclude_tests": options.get("exclude_tests"),
                    "lang": options.get("lang"),
                }
            )
        except (ParamError, SearchError) as exc:
            raise CommandError(str(exc)) from None
        repository = self._repository(name, path)
        try:
            response = answer(repository=repository, **checked.search_arguments())
        except SearchError as exc:
            raise CommandError(str(exc)) from exc
        lines = response.lines
        for notice in response.notices:
            self.stderr.write(f"note: {notice}")
        if json:
            self.stdout.write(_dumps([hit_as_dict(h) for h in lines.hits]))
        elif options["group"] == "file":
            counts = {p: n for _, p, n in lines.files}
            current = None
            for hit in lines.hits:
                if hit.path != current:
                    current = hit.path
                    self.stdout.write(f"{hit.path} ({counts.get(hit.path, 0)})")
                self.stdout.write(f"  {hit.line}: {hit.text}{_in_unit(hit)}")
        else:
            for hit in lines.hits:
                self.stdout.write(f"{hit.path}:{hit.line}:{hit.text}{_in_unit(hit)}")
        self.stdout.flush()
        more = "at least " if not lines.counted_all else ""
        self.stderr.write(
            f"{more}{lines.total} matching lines in {len(lines.files)} files, "
            f"{len(lines.hits)} shown ({lines.narrowed_by}), {response.timings_ms['total']:.0f} ms"
        )
        if path and not options["no_phase2"]:
            self._phase2_detached(repository)


def _in_unit(hit) -> str:
    return f"    [{hit.unit.qualname}]" if hit.unit is not None else ""


def _dumps(rows) -> str:
    return json.dumps(rows, indent=2, default=str)
