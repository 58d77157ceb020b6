"""One search's access to a repository's active generation: the context its streams share, the
candidates' scores for the learned ranker, and resolving ids to units. Full mode runs its LLM
streams on the same context, so every stream of a search shares one query vector, one lexical
scoring and one set of filters."""

from __future__ import annotations

import logging

from django.conf import settings

from indexing.embedding import Embedder, EmbedderUnavailable, get_embedder
from indexing.models import CodeUnit, IndexRun, Repository
from indexing.static_tier import embedder_for, static_model_id
from indexing.store import VectorStoreUnavailable, get_vector_store
from indexing.unit_cache import generation_units
from indexing.vector_mirror import mirrored
from search import streams as S
from search.filters import SearchFilters

logger = logging.getLogger(__name__)


def search_config() -> dict:
    return settings.REPORIFT["SEARCH"]


class _UnavailableStore:
    """Stands in for a vector store that cannot be reached: the vector streams then report the
    error and the lexical stream still answers."""

    in_memory = True  # nothing to copy

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


def retriever_store(generation: IndexRun, *, embedder: Embedder | None = None):
    """The vector store a search of `generation` reads (with its candidates' scores served
    from memory once copied): `embedder`'s, by default the generation's own model's."""
    embedder = embedder or generation_embedder(generation)
    store = _vector_store_or_placeholder(embedder.model_id)
    return mirrored(
        store,
        model_id=embedder.model_id,
        generation=generation,
        graph=search_config()["VECTOR_GRAPH"],
    )


class Retriever:
    """One search's access to a repository's active generation: the context its streams share
    (`streams`), the candidates' scores for the learned ranker, and resolving ids to units."""

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
        config = search_config()
        # The streams that answer fast mode must reach at least k deep.
        depth = {**config["DEPTH"], "S7": config["DEFINITIONS"]}
        depth |= {s: max(k, depth[s]) for s in ("S1", "S6", "S4")}
        embedder = generation_embedder(generation, phase=phase)
        self.streams = S.StreamContext(
            repository=repository,
            generation=generation,
            embedder=embedder,
            store=retriever_store(generation, embedder=embedder),
            depth=depth,
            filters=filters,
            # Filters drop many hits after the store answers, so ask it for more.
            overfetch=10 if filters.active else 2,
            function_kinds=filters.kinds or S.FUNCTION_KINDS,
            query_kinds=filters.kinds,
        )

    @property
    def timings_ms(self) -> dict[str, float]:
        return self.streams.timings_ms

    def cap(self, stream: str) -> int | None:
        """How many resolved hits a stream may contribute (S3 is capped per component)."""
        depth = self.streams.depth
        return {"S2": 2 * depth["S2"], "S3": None}.get(stream, depth.get(stream))

    def candidate_scores(
        self, text: str, unit_ids: list[int]
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
        """Cosine with the code vector, with the header vector, and the BM25 score of each
        candidate for `text`, however it was found. A missing value (a store that is down) is
        absent from its dict."""
        vector = self.streams.query_vector(text)
        ids = [str(u) for u in unit_ids]
        fields: list[dict[int, float]] = []
        for field in ("code", "header"):
            try:
                found = self.streams.store.scores(
                    vector, ids, repository_id=self.repository.pk, field=field
                )
            except VectorStoreUnavailable:
                found = {}
            fields.append({int(k): v for k, v in found.items()})
        index, scores = self.streams.lexical(text)
        return fields[0], fields[1], index.scores_of(scores, unit_ids)

    def resolve(self, unit_ids: set[int]) -> dict[int, CodeUnit]:
        """Units of the search's generation that pass the filters; other ids (a vector store's
        hits of another generation) are dropped. The generation's lexical index, which the
        search has loaded anyway, says which ids are of it."""
        held = self.streams.lexical_index().holds(unit_ids)
        units = generation_units(self.generation, held)
        if not self.filters.active:
            return units
        return {pk: u for pk, u in units.items() if self.filters.allows(u.path, u.kind, u.language)}
