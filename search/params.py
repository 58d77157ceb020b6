"""What every client of search shares: its parameters, checked once with one set of messages
(the page's form, the JSON API, MCP and the command line), and the repositories a caller names.

A parameter is declared once, in SEARCH_PARAMS: its name, type, default, help and check. The
API's query schema is built from it, the page's form and MCP's tools hand their values to
`search_params`, and `SearchRequest.filters` is the one place values become SearchFilters.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from indexing.models import CodeUnit
from search.exact import DEFAULT_LIMIT
from search.file_groups import GROUPS
from search.filters import SearchFilters, parse_languages
from search.results import SearchError
from search.retrieval import search_config
from search.services import MODES, query_text


class ParamError(ValueError):
    """A parameter a client may not send; the message is meant for the user."""


@dataclass(frozen=True)
class Param:
    name: str
    type: Any  # the API schema's annotation
    default: Any
    help: str
    clean: Callable[[Any], Any]
    required: bool = False


def _query(value: Any) -> str:
    try:
        return query_text(str(value or ""))
    except SearchError as exc:
        raise ParamError(str(exc)) from None


def _count(name: str, top: Callable[[], int]) -> Callable[[Any], int]:
    """A whole number from 1 to `top()` (read when checked: the settings may change)."""

    def clean(value: Any) -> int:
        most = top()
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ParamError(f"{name} must be a whole number between 1 and {most}") from None
        if not 1 <= number <= most:
            raise ParamError(f"{name} must be between 1 and {most}")
        return number

    return clean


_k = _count("k", lambda: search_config()["MAX_K"])
_limit = _count("limit", lambda: search_config()["EXACT"]["MAX_HITS"])


def _choice(name: str, allowed: tuple[str, ...]) -> Callable[[Any], str]:
    def clean(value: Any) -> str:
        value = str(value or "").strip()
        if value not in allowed:
            raise ParamError(f"{name} must be one of {', '.join(allowed)} (not {value!r})")
        return value

    return clean


KINDS = tuple(CodeUnit.Kind.values)
_one_kind = _choice("kind", KINDS)


def _kinds(value: Any) -> tuple[str, ...]:
    values = [value] if isinstance(value, str) else list(value or [])
    return tuple(dict.fromkeys(_one_kind(v) for v in values if str(v).strip()))


def _languages(value: Any) -> tuple[str, ...]:
    try:
        return parse_languages(value)
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def _path(value: Any) -> str:
    path = str(value or "").strip()
    if len(path) > 500:
        raise ParamError("path is longer than 500 characters")
    return path


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "on", "yes")
    return bool(value)


SEARCH_PARAMS = (
    Param(
        "q",
        str,
        "",
        "what the code does, in plain words, or a whole issue (up to 32,000 characters; "
        "POST it): an issue gets the units of the files it points to. The box's syntax: "
        '"exact text", /regex/ or /regex/i (RE2), path:DIR, -path:DIR, lang:go, kind:method, '
        "symbol:NAME, with free words ranked by meaning; a literal, pattern or symbol answers "
        "with matching lines (`lines`)",
        _query,
        required=True,
    ),
    Param("k", int, 10, "how many results", _k),
    Param(
        "limit",
        int,
        DEFAULT_LIMIT,
        "exact search (a literal or /pattern/ in q): how many matching lines to return, at "
        "most 500; the total is counted beyond it",
        _limit,
    ),
    Param("mode", str, "fast", "fast, or full (asks an LLM; slower)", _choice("mode", MODES)),
    Param("path", str, "", 'a folder prefix ("pkg/sub/") or a glob ("*/models.py")', _path),
    Param("kind", list[str], [], f"repeat to keep several: {', '.join(KINDS)}", _kinds),
    Param("exclude_tests", bool, False, "leave out test files", _flag),
    Param(
        "lang",
        list[str],
        [],
        "only these languages (go, typescript, markdown...): repeat it or give a comma list",
        _languages,
    ),
    Param(
        "group",
        str,
        "unit",
        "unit (a ranked list of units), or file: files ranked, each with its best units and lines",
        _choice("group", GROUPS),
    ),
)
# The filters code to code takes (no query, no mode).
SIMILAR_PARAMS = tuple(p for p in SEARCH_PARAMS if p.name not in ("q", "mode", "limit"))


def _issue(value: Any) -> str:
    text = str(value or "").strip()
    if not text:
        raise ParamError("the issue is empty")
    limit = search_config()["MAX_ISSUE_CHARS"]
    if len(text) > limit:
        raise ParamError(
            f"the issue is longer than {limit:,} characters (it has {len(text):,}): paste its "
            "first part, or its title and traceback"
        )
    return text


# Files for an issue (search.locate): the issue, how many files, and the filters files obey.
LOCATE_PARAMS = (
    Param(
        "issue",
        str,
        "",
        "the issue as written: title, prose, traceback, code (up to 32,000 characters)",
        _issue,
        required=True,
    ),
    *(p for p in SEARCH_PARAMS if p.name in ("k", "mode", "path", "exclude_tests", "lang")),
)


@dataclass(frozen=True)
class SearchRequest:
    """Checked values by parameter name; absent ones hold their defaults."""

    values: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    @property
    def filters(self) -> SearchFilters:
        return SearchFilters(
            path=self.values.get("path", ""),
            kinds=tuple(self.values.get("kind", ())),
            exclude_tests=bool(self.values.get("exclude_tests", False)),
            languages=tuple(self.values.get("lang", ())),
        )

    def locate_arguments(self) -> dict[str, Any]:
        """What `search.locate.locate_files` takes from a request, besides the repository."""
        return {
            "issue": self.values["issue"],
            "k": self.values["k"],
            "mode": self.values["mode"],
            "filters": self.filters,
        }

    def search_arguments(self) -> dict[str, Any]:
        """What `search` and `search_across` take from a request, besides the repositories."""
        return {
            "query": self.values["q"],
            "k": self.values["k"],
            "mode": self.values["mode"],
            "filters": self.filters,
            "limit": self.values.get("limit"),
        }


def search_params(raw: Mapping[str, Any], params: Iterable[Param] = SEARCH_PARAMS) -> SearchRequest:
    """Each parameter checked, or ParamError with the first one's message. A missing or empty
    value takes its default, but a required one (the query) goes through its check, which
    refuses it."""
    values = {}
    for param in params:
        value = raw.get(param.name)
        if value is None or value == "" or value == []:
            if param.required:
                param.clean("")
            values[param.name] = param.default
        else:
            values[param.name] = param.clean(value)
    return SearchRequest(values)


def api_schema(name: str, params: Iterable[Param], **extra: tuple[Any, Any]):
    """A django-ninja query schema of `params` (plus `extra` fields). Nothing there is required
    and `search_params` checks the values, so the API answers with the same messages as the
    page, MCP and the command line."""
    from ninja import Schema
    from pydantic import Field, create_model

    fields = {p.name: (p.type, Field(p.default, description=p.help)) for p in params}
    return create_model(name, __base__=Schema, **fields, **extra)


def unknown_repository_message(name: str, known: Iterable[str]) -> str:
    """What a client says of a repository name the caller cannot see, with the closest names
    it can see (private ones are never offered: `known` is what the caller may see)."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    message = f"no repository named {name!r}"
    if close:
        message += "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return message


def repository_suggestion(*, user, name: str) -> str:
    """`unknown_repository_message` among the repositories `user` may see."""
    from indexing.selectors import repositories_visible_to

    names = repositories_visible_to(user).values_list("name", flat=True)
    return unknown_repository_message(name, names)
