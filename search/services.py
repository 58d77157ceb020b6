"""Search: run the streams of a mode, fuse them, rerank in full mode, resolve to units.

`fast` runs S1 + S4 with no LLM. `full` adds the agents (augmented query S5, generated code S2,
its component functions S3) and the LLM reranker; when the LLM is down or answers garbage, it
answers like `fast` and says so in `notices`.
"""

from __future__ import annotations

import fnmatch
import logging
import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np
from django.conf import settings

from indexing.embedding import get_embedder
from indexing.lexical import lexical_index_for_run
from indexing.models import CodeUnit, Repository
from indexing.selectors import active_units
from indexing.store import VectorStoreUnavailable, get_vector_store
from search import streams as S
from search.fusion import reciprocal_rank_fusion

logger = logging.getLogger(__name__)
MODES = ("fast", "full")
FAST_STREAMS = ("S1", "S4")
ALL_STREAMS = ("S1", "S2", "S3", "S4", "S5")
# Full mode's stages: the streams and the LLM reranker ("rerank" may be named in `streams`).
FULL_STAGES = (*ALL_STREAMS, "rerank")


class SearchError(Exception):
    """A search request that cannot be answered; the message is meant for the user."""


@dataclass(frozen=True)
class SearchFilters:
    path: str = ""  # a prefix ("pkg/sub/") or a glob ("*/models.py")
    kinds: tuple[str, ...] = ()
    exclude_tests: bool = False

    @property
    def active(self) -> bool:
        return bool(self.path or self.kinds or self.exclude_tests)

    def allows(self, path: str, kind: str) -> bool:
        if self.kinds and kind not in self.kinds:
            return False
        if self.exclude_tests and is_test_path(path):
            return False
        if self.path:
            if any(c in self.path for c in "*?["):
                return fnmatch.fnmatchcase(path, self.path)
            return path.startswith(self.path.lstrip("/"))
        return True


def is_test_path(path: str) -> bool:
    pure = PurePosixPath(path)
    name = pure.name
    return (
        any(part in ("test", "tests", "testing") for part in pure.parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


@dataclass
class SearchResult:
    rank: int
    unit: CodeUnit
    score: float
    stream_ranks: dict[str, int]
    reason: str = ""

    @property
    def streams(self) -> list[str]:
        return sorted(self.stream_ranks)


@dataclass
class SearchResponse:
    query: str
    mode: str
    mode_used: str
    results: list[SearchResult]
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    candidates: int = 0
    llm_model: str = ""
    augmented_query: str = ""
    generated_code: str = ""
    rerank: bool = False


def search_config() -> dict:
    return settings.REPORIFT["SEARCH"]


def search(
    *,
    repository: Repository,
    query: str,
    k: int = 10,
    mode: str = "fast",
    filters: SearchFilters | None = None,
    streams: tuple[str, ...] | None = None,
) -> SearchResponse:
    """Rank the units of the repository's active generation for `query`, best first.

    `streams` restricts which streams run (the evaluation harness ablates with it)."""
    config = search_config()
    query = " ".join(query.split())
    if not query:
        raise SearchError("the query is empty")
    if len(query) > config["MAX_QUERY_CHARS"]:
        raise SearchError(f"the query is longer than {config['MAX_QUERY_CHARS']} characters")
    if mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}")
    if not 1 <= k <= config["MAX_K"]:
        raise SearchError(f"k must be between 1 and {config['MAX_K']}")
    repository.refresh_from_db(fields=["active_run"])
    if repository.active_run_id is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    filters = filters or SearchFilters()
    wanted = tuple(streams or (FULL_STAGES if mode == "full" else FAST_STREAMS))
    started = time.perf_counter()
    response = SearchResponse(query=query, mode=mode, mode_used=mode, results=[])

    runner = _StreamRunner(repository, filters, k)
    results: list[S.StreamResult] = []
    if "S1" in wanted:
        results.append(runner.query(query))
    if "S4" in wanted:
        results.append(runner.lexical(query))
    if mode == "full":
        from search.full_mode import run_llm_streams

        results += run_llm_streams(
            query=query,
            repository=repository,
            runner=runner,
            wanted=wanted,
            response=response,
            explicit=streams is not None,
        )
    for result in results:
        response.timings_ms[result.name] = round(result.latency_ms, 2)
        if result.error:
            response.notices.append(f"stream {result.name} failed: {result.error}")

    resolve_start = time.perf_counter()
    units = runner.resolve({unit_id for r in results for unit_id, _ in r.hits})
    response.timings_ms["resolve"] = round((time.perf_counter() - resolve_start) * 1000, 2)
    fuse_start = time.perf_counter()
    rankings = {r.name: [u for u, _ in r.hits if u in units][: runner.cap(r.name)] for r in results}
    limit = config["CANDIDATES"] if mode == "full" else k
    fused = reciprocal_rank_fusion(
        rankings, weights=config["WEIGHTS"], k=config["RRF_K"], limit=max(limit, k)
    )
    response.timings_ms["fusion"] = round((time.perf_counter() - fuse_start) * 1000, 2)
    response.candidates = len(fused)
    ordered = [SearchResult(0, units[h.key], h.score, h.ranks) for h in fused]

    if mode == "full" and response.mode_used == "full":
        from search.full_mode import rerank

        ordered = rerank(query=query, results=ordered, response=response)
    for rank, result in enumerate(ordered[:k], start=1):
        result.rank = rank
    response.results = ordered[:k]
    response.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 2)
    return response


class _UnavailableStore:
    """Stands in for a vector store that cannot be reached: the vector streams then report the
    error and the lexical stream still answers."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def query(self, *args, **kwargs):
        raise VectorStoreUnavailable(str(self.error))


def _vector_store_or_placeholder():
    try:
        return get_vector_store()
    except VectorStoreUnavailable as exc:
        logger.warning("vector store unavailable: %s", exc)
        return _UnavailableStore(exc)


class _StreamRunner:
    """Holds what every stream of one search shares: the context, the filters, the depths."""

    def __init__(self, repository: Repository, filters: SearchFilters, k: int) -> None:
        self.repository = repository
        self.filters = filters
        depth = search_config()["DEPTH"]
        # The streams that answer fast mode alone must reach at least k deep.
        self.depth = {**depth, "S1": max(k, depth["S1"]), "S4": max(k, depth["S4"])}
        self.ctx = S.StreamContext(
            repository_id=repository.pk,
            embedder=get_embedder(),
            store=_vector_store_or_placeholder(),
            # Filters drop many hits after the store answers, so ask it for more.
            overfetch=10 if filters.active else 2,
            function_kinds=filters.kinds or S.FUNCTION_KINDS,
        )

    def cap(self, stream: str) -> int | None:
        """How many resolved hits a stream may contribute (S3 is capped per component)."""
        return {"S2": 2 * self.depth["S2"], "S3": None}.get(stream, self.depth.get(stream))

    def query(self, text: str) -> S.StreamResult:
        return S.query_stream(self.ctx, text, depth=self.depth["S1"])

    def augmented(self, text: str) -> S.StreamResult:
        return S.augmented_query_stream(self.ctx, text, depth=self.depth["S5"])

    def generated(self, code: str) -> S.StreamResult:
        return S.generated_code_stream(self.ctx, code, depth=self.depth["S2"])

    def components(self, components: list[str]) -> S.StreamResult:
        return S.component_functions_stream(self.ctx, components, depth=self.depth["S3"])

    def lexical(self, text: str) -> S.StreamResult:
        index = lexical_index_for_run(self.repository.active_run_id)
        mask = None
        if self.filters.active:
            allowed = self._allowed_ids()
            mask = np.isin(index.unit_ids, allowed).astype(np.float32)
        return S.lexical_stream(index, text, depth=self.depth["S4"], mask=mask)

    def _allowed_ids(self) -> np.ndarray:
        rows = active_units(repository=self.repository).values_list("pk", "path", "kind")
        return np.array(
            [pk for pk, path, kind in rows if self.filters.allows(path, kind)], dtype=np.int64
        )

    def resolve(self, unit_ids: set[int]) -> dict[int, CodeUnit]:
        """Units of the active generation that pass the filters; other ids are dropped."""
        units = active_units(repository=self.repository).filter(pk__in=unit_ids)
        return {u.pk: u for u in units if self.filters.allows(u.path, u.kind)}
