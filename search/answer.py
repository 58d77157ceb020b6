"""What a client's query gets: a phrase or a name is searched (`search.services.search`); a
pasted issue (several lines, or longer than a phrase) is read as one and answered with the units
of the files it points to (`search.locate.issue_search`); a query in the box's syntax
(`search.query_syntax`: "exact text", /regex/, path:, lang:, kind:, symbol:) filters the search,
and with a literal, a pattern or a symbol is answered with matching lines (`search.exact`). The
page, the API, MCP and the command line ask through here, so a query is read the same everywhere.
"""

from __future__ import annotations

from dataclasses import replace

from indexing.models import Repository
from search.filters import SearchFilters
from search.locate import issue_search
from search.query_syntax import ParsedQuery, parse_query
from search.results import SearchError, SearchResponse
from search.services import Progress, is_issue, query_text, search


def with_qualifiers(filters: SearchFilters | None, parsed: ParsedQuery) -> SearchFilters:
    """The caller's filters narrowed by the query's `path:`, `lang:` and `kind:` (one `path:`
    of a plain search is its path filter; several, or `-path:`, need exact search's reading)."""
    filters = filters or SearchFilters()
    changes = {}
    if parsed.languages:
        changes["languages"] = tuple(parsed.languages)
    if parsed.kinds:
        changes["kinds"] = tuple(parsed.kinds)
    if len(parsed.paths) == 1 and not filters.path:
        changes["path"] = parsed.paths[0]
    return replace(filters, **changes)


def asks_for_lines(parsed: ParsedQuery) -> bool:
    """A literal, a pattern or a symbol, or path filters only exact search reads."""
    return bool(parsed.exact or len(parsed.paths) > 1 or parsed.not_paths)


def meaning_search(
    query: str, filters: SearchFilters | None = None
) -> tuple[str, SearchFilters] | None:
    """What a search by meaning of `query` looks for and under which filters (the caller's and
    the query's own `path:`, `lang:`, `kind:`); None for an issue, for exact lines, and for
    qualifiers with no words (which `answer` refuses)."""
    text = query_text(query)
    if is_issue(text):
        return None
    parsed = parse_query(text)
    if asks_for_lines(parsed) or (parsed.has_syntax and not parsed.words):
        return None
    # Without syntax the parse adds no qualifier: the caller's filters stand as they are.
    return (parsed.words if parsed.has_syntax else text), with_qualifiers(filters, parsed)


def answer(
    *,
    repository: Repository,
    query: str,
    k: int = 10,
    mode: str = "fast",
    filters: SearchFilters | None = None,
    progress: Progress | None = None,
    limit: int | None = None,
) -> SearchResponse:
    text = query_text(query)
    if is_issue(text):
        return issue_search(repository=repository, issue=text, k=k, filters=filters, mode=mode)
    parsed = parse_query(text)
    if asks_for_lines(parsed):
        from search.exact import exact_search

        if not parsed.exact:
            raise SearchError(
                'several path: or a -path: filter go with a "literal", a /pattern/ or a '
                "symbol:; a search by meaning takes one path:"
            )
        return exact_search(
            repository=repository, parsed=parsed, filters=filters, k=k, limit=limit, mode=mode
        )
    if parsed.has_syntax:
        if not parsed.words:
            raise SearchError(
                'the query has filters but nothing to look for: add words, a "literal" or '
                "a /pattern/"
            )
        return search(
            repository=repository,
            query=parsed.words,
            k=k,
            mode=mode,
            filters=with_qualifiers(filters, parsed),
            progress=progress,
        )
    return search(
        repository=repository, query=text, k=k, mode=mode, filters=filters, progress=progress
    )
