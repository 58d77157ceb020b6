"""One search's access to a repository's active generation: the streams, the candidates' scores
for the learned ranker, and resolving ids to units. Full mode adds its LLM streams through the
same object, so every stream of a search shares one query vector, one lexical scoring and one
set of filters."""

from __future__ import annotations

import logging
import time

import numpy as np
from django.conf import settings

from indexing.embedding import Embedder, EmbedderUnavailable, get_embedder, query_vector
from indexing.lexical import lexical_index_for_run
from indexing.models import CodeUnit, IndexRun, Repository
from indexing.selectors import active_units
from indexing.static_tier import embedder_for, static_model_id
from indexing.store import VectorStoreUnavailable, get_vector_store
from search import streams as S
from search.filters import SearchFilters

logger = logging.getLogger(__name__)


def search_config() -> dict:
    return settings.REPORIFT["SEARCH"]


class _UnavailableStore:
    """Stands in for a vector store that cannot be reached: the vector streams then report the
    error and the lexical stream still answers."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def query(self, *args, **kwargs):
        raise VectorStoreUnavailable(str(self.error))

    scores = query


def _vector_store_or_placeholder(model_id: str):
    try:
        return get_vector_store(model_id)
    except VectorStoreUnavailable as exc:
        logger.warning("vector store unavailable: %s", exc)
        return _UnavailableStore(exc)


def generation_embedder(generation: IndexRun, *, phase: int | None = None) -> Embedder:
    """The embedder of the model whose vectors answer for `generation` (the static tier's
    between phase 1 and phase 2): the query vector must be of the same model. `phase=1` asks
    for the static tier's even after phase 2 (a generation keeps those vectors for its next
    run), which is how the evaluation pairs the two phases on one index. A generation of a
    model this process no longer serves gets the serving one (its vector streams then find
    nothing, and the search says why)."""
    model_id = generation.embedder_model
    if phase == 1 and generation.phase2_model:
        model_id = static_model_id(generation.phase2_model)
    try:
        return embedder_for(model_id)
    except EmbedderUnavailable:
        return get_embedder()


class Retriever:
    def __init__(
        self,
        *,
        repository: Repository,
        generation: IndexRun,
        filters: SearchFilters,
        k: int,
        phase: int | None = None,
    ) -> None:
        self.repository = repository
        self.generation = generation
        self.filters = filters
        depth = search_config()["DEPTH"]
        # The streams that answer fast mode must reach at least k deep.
        self.depth = {**depth, **{s: max(k, depth[s]) for s in ("S1", "S6", "S4")}}
        embedder = generation_embedder(generation, phase=phase)
        self.ctx = S.StreamContext(
            repository_id=repository.pk,
            embedder=embedder,
            store=_vector_store_or_placeholder(embedder.model_id),
            # Filters drop many hits after the store answers, so ask it for more.
            overfetch=10 if filters.active else 2,
            function_kinds=filters.kinds or S.FUNCTION_KINDS,
            query_kinds=filters.kinds,
        )
        self.timings_ms: dict[str, float] = {}
        self._query_vector: tuple[str, np.ndarray] | None = None
        self._lexical_scores: tuple[str, np.ndarray] | None = None

    def cap(self, stream: str) -> int | None:
        """How many resolved hits a stream may contribute (S3 is capped per component)."""
        caps = {"S2": 2 * self.depth["S2"], "S3": None, "S7": search_config()["DEFINITIONS"]}
        return caps.get(stream, self.depth.get(stream))

    def query_vector(self, text: str) -> np.ndarray:
        if self._query_vector is None or self._query_vector[0] != text:
            start = time.perf_counter()
            self._query_vector = (text, query_vector(self.ctx.embedder, text))
            self.timings_ms["embed"] = round((time.perf_counter() - start) * 1000, 2)
        return self._query_vector[1]

    # Streams ------------------------------------------------------------------------------

    def code_stream(self, text: str) -> S.StreamResult:
        return S.query_stream(self.ctx, self.query_vector(text), depth=self.depth["S1"])

    def header_stream(self, text: str) -> S.StreamResult:
        return S.header_stream(self.ctx, self.query_vector(text), depth=self.depth["S6"])

    def augmented(self, text: str) -> S.StreamResult:
        return S.augmented_query_stream(self.ctx, text, depth=self.depth["S5"])

    def generated(self, code: str) -> S.StreamResult:
        return S.generated_code_stream(self.ctx, code, depth=self.depth["S2"])

    def components(self, components: list[str]) -> S.StreamResult:
        return S.component_functions_stream(self.ctx, components, depth=self.depth["S3"])

    def definitions(self, text: str) -> S.StreamResult:
        units = active_units(repository=self.repository)
        return S.definitions_stream(units, text, depth=search_config()["DEFINITIONS"])

    def lexical_stream(self, text: str) -> S.StreamResult:
        index = lexical_index_for_run(self.generation)
        mask = None
        if self.filters.active:
            mask = np.isin(index.unit_ids, self._allowed_ids()).astype(np.float32)
        scores = self._bm25(text, index)
        return S.lexical_stream(index, text, depth=self.depth["S4"], mask=mask, scores=scores)

    # Candidates ---------------------------------------------------------------------------

    def candidate_scores(
        self, text: str, unit_ids: list[int]
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
        """Cosine with the code vector, with the header vector, and the BM25 score of each
        candidate for `text`, however it was found. A missing value (a store that is down) is
        absent from its dict."""
        vector = self.query_vector(text)
        ids = [str(u) for u in unit_ids]
        fields: list[dict[int, float]] = []
        for field in ("code", "header"):
            try:
                found = self.ctx.store.scores(
                    vector, ids, repository_id=self.repository.pk, field=field
                )
            except VectorStoreUnavailable:
                found = {}
            fields.append({int(k): v for k, v in found.items()})
        index = lexical_index_for_run(self.generation)
        bm25 = index.scores_of(self._bm25(text, index), unit_ids)
        return fields[0], fields[1], bm25

    def resolve(self, unit_ids: set[int]) -> dict[int, CodeUnit]:
        """Units of the active generation that pass the filters; other ids are dropped."""
        units = active_units(repository=self.repository).filter(pk__in=unit_ids)
        return {u.pk: u for u in units if self.filters.allows(u.path, u.kind)}

    def _bm25(self, text: str, index) -> np.ndarray:
        if self._lexical_scores is None or self._lexical_scores[0] != text:
            self._lexical_scores = (text, index.scores(text))
        return self._lexical_scores[1]

    def _allowed_ids(self) -> np.ndarray:
        rows = active_units(repository=self.repository).values_list("pk", "path", "kind")
        return np.array(
            [pk for pk, path, kind in rows if self.filters.allows(path, kind)], dtype=np.int64
        )
