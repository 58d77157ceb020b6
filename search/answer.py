"""What a client's query gets: a phrase or a name is searched (`search.services.search`); a
pasted issue (several lines, or longer than a phrase) is read as one and answered with the units
of the files it points to (`search.locate.issue_search`). The page, the API, MCP and the
command line ask through here, so a pasted bug report is read the same everywhere.
"""

from __future__ import annotations

from indexing.models import Repository
from search.filters import SearchFilters
from search.locate import issue_search
from search.results import SearchResponse
from search.services import Progress, is_issue, query_text, search


def answer(
    *,
    repository: Repository,
    query: str,
    k: int = 10,
    mode: str = "fast",
    filters: SearchFilters | None = None,
    progress: Progress | None = None,
) -> SearchResponse:
    text = query_text(query)
    if is_issue(text):
        return issue_search(repository=repository, issue=text, k=k, filters=filters, mode=mode)
    return search(
        repository=repository, query=text, k=k, mode=mode, filters=filters, progress=progress
    )
