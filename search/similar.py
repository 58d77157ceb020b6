"""Code to code: the units that do what a pasted snippet, or an indexed unit, does.

Candidates come from two places: the snippet's code vector against every unit's code vector
(sees through renamed identifiers and reformatting) and BM25 over the snippet's words (finds a
copy whose body drifted but whose names did not). They are ordered by a weighted sum of three
similarities that each mean the same in every repository: the code vectors' cosine, the
cosine of the identifier words (`search.ranking.likeness.word_similarity`) and that of the
syntax-tree shape (`shape_similarity`). The weights were chosen on the vendored-copy set
(docs/BENCHMARKS.md, "Code to code"), where each signal's share is measured.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from indexing.models import CodeUnit, Repository
from indexing.selectors import active_generation, active_units
from indexing.store import VectorStoreUnavailable
from indexing.unit_text import MAX_CHARS
from indexing.vector_cache import cached_vectors, text_key
from search.across import merged_search
from search.filters import SearchFilters
from search.ranking.likeness import shape_similarity, word_similarity
from search.results import SearchError, SearchResponse, SearchResult
from search.retrieval import Retriever, search_config
from search.services import say_phase

MODE = "similar"
SIGNALS = ("vector", "words", "shape")


@dataclass(frozen=True)
class CodeQuery:
    """What to find code like: a snippet's text, and the unit it is when it is one (left out of
    its own results)."""

    code: str
    unit: CodeUnit | None = None
    # The code's language: a unit's own; for a pasted snippet the one language the caller
    # filtered on, else unknown (read as Python, and no language goes first).
    language: str = ""

    @property
    def reads_as(self) -> str:
        return self.language or "python"

    @property
    def label(self) -> str:
        if self.unit is not None:
            return f"code like {self.unit.qualname} ({self.unit.path}:{self.unit.start_line})"
        first = next((line.strip() for line in self.code.splitlines() if line.strip()), "")
        return f"code like: {first[:80]}"


@dataclass
class Candidate:
    unit: CodeUnit
    similarities: dict[str, float]  # signal -> similarity in [0, 1] (cosines)
    found_by: dict[str, int]  # "vector"/"bm25" -> 1-based rank in that candidate list


def code_query(*, code: str = "", unit: CodeUnit | None = None, language: str = "") -> CodeQuery:
    """Check what the caller gave: one of a snippet (with its language, when known) or a
    unit."""
    if unit is not None:
        return CodeQuery(code=unit.code, unit=unit, language=unit.language)
    limit = search_config()["SIMILAR"]["MAX_CODE_CHARS"]
    if not code.strip():
        raise SearchError("paste the code to find code like")
    if len(code) > limit:
        raise SearchError(f"the code is longer than {limit} characters")
    return CodeQuery(code=code, language=language)


def _snippet_vector(retriever: Retriever, query: CodeQuery) -> np.ndarray:
    """The snippet embedded as units' code is. An indexed unit's vector was cached when it was
    indexed (under the text embedded), so asking for it costs a read, not a model run."""
    embedder = retriever.streams.embedder
    text = query.code[:MAX_CHARS]  # what `indexing.unit_text.code_text` embeds of a unit
    if query.unit is not None and getattr(embedder, "worth_caching", True):
        key = text_key(text)
        found = cached_vectors(embedder.model_id, {key}, embedder.dimension)
        if key in found:
            return found[key]
    return retriever.streams.query_vector(text)


def candidates(
    *,
    repository: Repository,
    query: CodeQuery,
    filters: SearchFilters | None = None,
    depth: int | None = None,
    timings_ms: dict[str, float] | None = None,
    notices: list[str] | None = None,
) -> tuple[list[Candidate], Retriever]:
    """Every candidate of `repository` for `query` with its similarities, in no order (the
    benchmark orders the same candidates under several weights). A vector store that is down
    leaves BM25's candidates, and `notices` says so."""
    generation = active_generation(repository=repository)
    if generation is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    depth = depth or search_config()["SIMILAR"]["DEPTH"]
    filters = filters or SearchFilters()
    query = _with_language(query, filters)
    timings = timings_ms if timings_ms is not None else {}
    retriever = Retriever(repository=repository, generation=generation, filters=filters, k=depth)
    ctx = retriever.streams

    start = time.perf_counter()
    vector = _snippet_vector(retriever, query)
    timings["embed"] = _ms(start)
    start = time.perf_counter()
    by_vector: list[int] = []
    try:
        hits = ctx.store.query(
            vector,
            repository_id=repository.pk,
            n=(depth + 1) * ctx.overfetch,
            kinds=list(filters.kinds) or None,
        )
        by_vector = [int(h.vector_id) for h in hits if h.vector_id.isdigit()]
    except VectorStoreUnavailable as exc:
        if notices is not None:
            notices.append(f"the code vectors are unavailable ({exc}); found by words alone")
    timings["vector"] = _ms(start)
    start = time.perf_counter()
    index, bm25 = ctx.lexical(query.code)
    by_words = [u for u, _ in index.search(query.code, n=(depth + 1) * ctx.overfetch, scores=bm25)]
    timings["bm25"] = _ms(start)

    start = time.perf_counter()
    own = query.unit.pk if query.unit is not None else None
    lists = {
        name: [u for u in found if u != own]
        for name, found in (("vector", by_vector), ("bm25", by_words))
    }
    units = retriever.resolve({u for found in lists.values() for u in found})
    lists = {name: [u for u in found if u in units][:depth] for name, found in lists.items()}
    found_by: dict[int, dict[str, int]] = {}
    for name, found in lists.items():
        for rank, unit_id in enumerate(found, start=1):
            found_by.setdefault(unit_id, {})[name] = rank
    ids = list(found_by)
    try:
        cosines = ctx.store.scores(vector, [str(u) for u in ids], repository_id=repository.pk)
    except VectorStoreUnavailable:
        cosines = {}
    timings["resolve"] = _ms(start)
    start = time.perf_counter()
    found = [
        Candidate(
            unit=units[u],
            similarities={
                "vector": max(0.0, float(cosines.get(str(u), 0.0))),
                "words": word_similarity(query.code, units[u].code),
                "shape": shape_similarity(
                    query.code, units[u].code, query.reads_as, units[u].language
                ),
            },
            found_by=found_by[u],
        )
        for u in ids
    ]
    timings["likeness"] = _ms(start)
    return found, retriever


def order(
    found: Sequence[Candidate], weights: Mapping[str, float], *, language: str = ""
) -> list[tuple[Candidate, float]]:
    """Best first by the weighted mean of the similarities (a score in [0, 1] that means the
    same in every repository); ties by which list found the candidate higher. With the code's
    `language` known, units of that language come first: code like a Go function is asked for
    in Go, and a Markdown section that quotes it is not code like it."""
    total = sum(weights.values()) or 1.0
    scored = [
        (c, sum(w * c.similarities.get(s, 0.0) for s, w in weights.items()) / total) for c in found
    ]
    scored.sort(
        key=lambda item: (
            bool(language) and item[0].unit.language != language,
            -item[1],
            min(item[0].found_by.values()),
            item[0].unit.pk,
        )
    )
    return scored


def _with_language(query: CodeQuery, filters: SearchFilters) -> CodeQuery:
    """A pasted snippet searched within one language is code of that language."""
    if query.language or len(filters.languages) != 1:
        return query
    return replace(query, language=filters.languages[0])


def _reason(candidate: Candidate) -> str:
    words = {"vector": "code vector", "words": "same words", "shape": "same shape"}
    parts = [f"{words[s]} {candidate.similarities[s]:.2f}" for s in SIGNALS]
    return "alike by " + ", ".join(parts)


def similar_code(
    *,
    repository: Repository,
    query: CodeQuery,
    k: int = 10,
    filters: SearchFilters | None = None,
) -> SearchResponse:
    """The `k` units of `repository` most like `query`, best first."""
    config = search_config()
    if not 1 <= k <= config["MAX_K"]:
        raise SearchError(f"k must be between 1 and {config['MAX_K']}")
    started = time.perf_counter()
    query = _with_language(query, filters or SearchFilters())
    response = SearchResponse(query=query.label, mode=MODE, mode_used=MODE, results=[])
    found, retriever = candidates(
        repository=repository,
        query=query,
        filters=filters,
        depth=max(k, config["SIMILAR"]["DEPTH"]),
        timings_ms=response.timings_ms,
        notices=response.notices,
    )
    say_phase(retriever.generation, retriever, response)
    response.candidates = len(found)
    response.ordered_by = "likeness"
    ranked = order(found, config["SIMILAR"]["WEIGHTS"], language=query.language)[:k]
    response.results = [
        SearchResult(
            rank,
            candidate.unit,
            score,
            stream_ranks=dict(candidate.found_by),
            reason=_reason(candidate),
            comparable=score,
            repository=repository.name,
        )
        for rank, (candidate, score) in enumerate(ranked, start=1)
    ]
    response.timings_ms["total"] = _ms(started)
    return response


def similar_across(
    *,
    repositories: Sequence[Repository],
    query: CodeQuery,
    k: int = 10,
    filters: SearchFilters | None = None,
) -> SearchResponse:
    """Code like `query` in every given repository that has an index, merged by score."""
    return merged_search(
        repositories,
        k,
        lambda repository: similar_code(repository=repository, query=query, k=k, filters=filters),
    )


def unit_for_similar(*, repositories: Sequence[Repository], unit_id: int) -> CodeUnit:
    """A unit of an active index among `repositories` (those the caller may see); any other id
    is refused alike, so a private unit's existence is never revealed."""
    unit = CodeUnit.objects.filter(pk=unit_id, repository__in=list(repositories)).first()
    if unit is None or not active_units(repository=unit.repository).filter(pk=unit_id).exists():
        raise SearchError(f"no indexed unit {unit_id} in the repositories you can search")
    return unit


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
