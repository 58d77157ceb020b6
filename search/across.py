"""One query over several repositories: each searched as it would be alone, the results merged.
Over more repositories than ACROSS["REPOSITORIES"], a question in words first makes one pass
over all of their static vectors, which picks the repositories to search in full
(`search.across_routing`); the rest are counted and never ranked.

A result's own score is standardised over its repository's candidates (`search.ranking.order`),
so the best unit of a repository that has nothing to do with the query scores as high as the
answer in the one that has it. The merge therefore orders by `SearchResult.comparable`: the
learned ranker's raw score, computed from the same features everywhere, most of them absolute
(cosines under one embedder, shares of the query's words in names and code). Within one
repository its own order is kept: a result never overtakes one its repository ranked higher.
A routed search adds what the route knows to that one order: each repository's evidence falls
some way below the likeliest one's, and its units pay that shortfall, weighed by
ACROSS["EVIDENCE_WEIGHT"], against their scores. So the likeliest repository's answers come first
unless another's fit the question clearly better, and where the route could hardly tell the two
apart their units mix on their scores alone.
What this costs and how well it merges: docs/BENCHMARKS.md ("All repositories at once: routed").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from indexing.models import Repository
from search.across_routing import route
from search.answer import answer, meaning_search
from search.filters import SearchFilters
from search.results import ExactLines, SearchError, SearchResponse, SearchResult
from search.retrieval import search_config


def merge(
    per_repository: Sequence[Sequence[SearchResult]],
    k: int,
    *,
    handicaps: Sequence[float] | None = None,
) -> list[SearchResult]:
    """The best `k` of several repositories' results in one order, each repository's kept (a
    result scores at most what the one above it in its repository scored). A result's score is
    its comparable score plus its repository's `handicap` (0 or less: what a route's evidence
    says against the repository, already weighed), so a unit of a repository that fits the
    question less well must score that much higher to come first."""
    handicaps = handicaps or [0.0] * len(per_repository)
    keyed = []
    for results, handicap in zip(per_repository, handicaps, strict=True):
        ceiling = float("inf")
        for position, result in enumerate(results):
            ceiling = min(ceiling, result.comparable + handicap)
            keyed.append((-ceiling, position, result.repository, result))
    keyed.sort(key=lambda item: item[:3])
    merged = [item[3] for item in keyed[:k]]
    for rank, result in enumerate(merged, start=1):
        result.rank = rank
    return merged


def merge_lines(parts: Sequence[ExactLines]) -> ExactLines | None:
    """Exact search's lines of several repositories, one after the other, up to the limit."""
    if not parts:
        return None
    limit = parts[0].limit
    return ExactLines(
        patterns=parts[0].patterns,
        hits=[hit for part in parts for hit in part.hits][:limit],
        total=sum(part.total for part in parts),
        files=[f for part in parts for f in part.files],
        limit=limit,
        counted_all=all(part.counted_all for part in parts),
        narrowed_by=parts[0].narrowed_by,
        scanned_all=all(part.scanned_all for part in parts),
    )


def merged_search(
    repositories: Sequence[Repository],
    k: int,
    search_one: Callable[[Repository], SearchResponse],
    *,
    handicaps: Sequence[float] | None = None,
) -> SearchResponse:
    """`search_one` over each repository, the results merged by comparable score (plus each
    repository's handicap, `merge`); one that is not indexed yet is named in the notices while
    the others answer."""
    if not repositories:
        raise SearchError("no repository to search")
    if len(repositories) == 1:
        return search_one(repositories[0])
    started = time.perf_counter()
    responses, kept, notices = [], [], []
    for repository, handicap in zip(
        repositories, handicaps or [0.0] * len(repositories), strict=True
    ):
        try:
            response = search_one(repository)
        except SearchError as exc:  # not indexed yet: the others still answer
            notices.append(f"{repository.name}: {exc}")
            continue
        responses.append(response)
        kept.append(handicap)
        notices += [f"{repository.name}: {n}" for n in response.notices]
    if not responses:
        raise SearchError("; ".join(notices) or "nothing to search")
    first = responses[0]
    merged = SearchResponse(
        query=first.query,
        mode=first.mode,
        mode_used=first.mode_used,
        results=merge([r.results for r in responses], k, handicaps=kept),
        notices=notices,
        candidates=sum(r.candidates for r in responses),
        ordered_by="+".join(sorted({r.ordered_by for r in responses})),
        index_phase=min(r.index_phase for r in responses),
        lines=merge_lines([r.lines for r in responses if r.lines is not None]),
    )
    merged.timings_ms = {
        "repositories": float(len(responses)),
        "total": round((time.perf_counter() - started) * 1000, 2),
    }
    return merged


def search_across(
    *,
    repositories: Sequence[Repository],
    query: str,
    k: int = 10,
    mode: str = "fast",
    filters: SearchFilters | None = None,
    limit: int | None = None,
) -> SearchResponse:
    """Fast mode over every given repository that has an index; full mode asks an LLM per
    candidate and stays one repository at a time. A question in words over more repositories
    than ACROSS["REPOSITORIES"] ranks only those its one pass over all their vectors picks
    (`search.across_routing`); an issue, exact text and patterns are searched in each."""
    if len(repositories) > 1 and mode != "fast":
        raise SearchError("full mode searches one repository at a time; pick one")

    def search_one(repository: Repository) -> SearchResponse:
        return answer(
            repository=repository, query=query, k=k, mode=mode, filters=filters, limit=limit
        )

    config = search_config()["ACROSS"]
    # An issue, exact text and patterns are not routed: their indexes answer in milliseconds.
    meaning = meaning_search(query, filters)
    if meaning is None or not config["REPOSITORIES"] or len(repositories) <= config["REPOSITORIES"]:
        return merged_search(repositories, k, search_one)
    words, routed_filters = meaning
    routed = route(repositories=repositories, query=words, filters=routed_filters)
    chosen = routed.shortfalls(config["REPOSITORIES"], config["EVIDENCE_UNITS"])
    # Those not indexed yet answer at once with what they lack, which the notices then say.
    response = merged_search(
        [*(r for r, _ in chosen), *routed.unindexed],
        k,
        search_one,
        handicaps=[config["EVIDENCE_WEIGHT"] * s for _, s in chosen]
        + [0.0] * len(routed.unindexed),
    )
    response.timings_ms |= {
        "repositories": float(len(repositories)),
        "ranked_repositories": float(len(chosen)),
        "route": routed.ms,
        "total": round(response.timings_ms.get("total", 0.0) + routed.ms, 2),
    }
    return response
