"""Retrieval streams. Each is one function, the stream's only home: it embeds what it needs,
asks its index, and returns a ranked list of (unit id, score) with its own latency. What the
streams of one search share (the generation, its embedder and vector store, the filters, one
BM25 scoring of the query) is their `StreamContext`. The orchestration in `search.services`
decides which run.

S1 query vs the code vectors of all units    S6 query vs the header vectors of all units
S2 generated code vs the code vectors of functions and of classes
S3 each generated component function vs functions (best match each)
S4 BM25 over identifiers, docstrings and code     S5 augmented query vs functions
S7 the units that define a name typed as the query (`Session.send`, `Router::handle`, `map/2`)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from indexing.embedding import Embedder, query_vector
from indexing.lexical import LexicalIndex, lexical_index_for_run
from indexing.models import CodeUnit, IndexRun, Repository
from indexing.selectors import active_units
from indexing.store import VectorStore
from search.filters import SearchFilters
from search.name_index import name_index
from search.ranking.structure import defines, definition_match, name_variants, query_shape

logger = logging.getLogger(__name__)
FUNCTION_KINDS = (CodeUnit.Kind.FUNCTION, CodeUnit.Kind.METHOD)
CLASS_KINDS = (CodeUnit.Kind.CLASS,)


@dataclass
class StreamResult:
    name: str
    hits: list[tuple[int, float]] = field(default_factory=list)  # (unit id, score), best first
    latency_ms: float = 0.0
    error: str = ""


@dataclass
class StreamContext:
    """What the streams of one search share."""

    repository: Repository
    generation: IndexRun
    # The model whose vectors answer for the generation, and its store: a query vector and the
    # vectors it meets are always of one model.
    embedder: Embedder
    store: VectorStore
    depth: dict[str, int]  # how many hits each stream returns
    filters: SearchFilters = field(default_factory=SearchFilters)
    # How many raw hits to ask for per requested one: stale ids of other generations and
    # filtered-out units are dropped after the store answers.
    overfetch: int = 2
    # The kinds the "functions" streams (S2, S3, S5) search: functions and methods, as in the
    # paper, unless the user asked for specific kinds.
    function_kinds: tuple[str, ...] = FUNCTION_KINDS
    # The kinds the query streams (S1, S6) search: every unit unless the user asked for kinds.
    # A class that encloses the answer is a right answer too, and no filter is the fast path.
    query_kinds: tuple[str, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    _bm25: tuple[str, np.ndarray] | None = field(default=None, repr=False)

    def query_vector(self, text: str) -> np.ndarray:
        """The query's vector (from the process's cache of recent queries), timed."""
        start = time.perf_counter()
        vector = query_vector(self.embedder, text)
        self.timings_ms.setdefault("embed", round((time.perf_counter() - start) * 1000, 2))
        return vector

    def lexical_index(self) -> LexicalIndex:
        """The generation's lexical index, which holds every unit of the generation."""
        return lexical_index_for_run(self.generation)

    def lexical(self, text: str) -> tuple[LexicalIndex, np.ndarray]:
        """The generation's lexical index and its BM25 scores for `text`, scored once per
        search: S4 and the learned ranker's features read the same scores."""
        index = self.lexical_index()
        if self._bm25 is None or self._bm25[0] != text:
            self._bm25 = (text, index.scores(text))
        return index, self._bm25[1]


def _timed(name: str):
    def wrap(fn):
        def run(*args, **kwargs) -> StreamResult:
            start = time.perf_counter()
            try:
                hits = fn(*args, **kwargs)
                error = ""
            except Exception as exc:  # one broken stream must not sink the others
                logger.exception("stream %s failed", name)
                hits, error = [], f"{type(exc).__name__}: {exc}"
            return StreamResult(name, hits, (time.perf_counter() - start) * 1000, error)

        run.__name__ = fn.__name__
        return run

    return wrap


def _vector_hits(
    ctx: StreamContext,
    vector: np.ndarray,
    *,
    n: int,
    kinds: Sequence[str],
    field: str = "code",
) -> list[tuple[int, float]]:
    hits = ctx.store.query(
        vector,
        repository_id=ctx.repository.pk,
        n=n * ctx.overfetch,
        kinds=list(kinds) or None,
        field=field,
    )
    return [(int(h.vector_id), h.score) for h in hits if h.vector_id.isdigit()]


@_timed("S1")
def code_stream(ctx: StreamContext, query: str) -> list[tuple[int, float]]:
    """The query against every unit's code vector."""
    vector = ctx.query_vector(query)
    return _vector_hits(ctx, vector, n=ctx.depth["S1"], kinds=ctx.query_kinds)


@_timed("S6")
def header_stream(ctx: StreamContext, query: str) -> list[tuple[int, float]]:
    """The query against every unit's header vector (kind, name words, place, signature)."""
    vector = ctx.query_vector(query)
    return _vector_hits(ctx, vector, n=ctx.depth["S6"], kinds=ctx.query_kinds, field="header")


@_timed("S2")
def generated_code_stream(ctx: StreamContext, code: str) -> list[tuple[int, float]]:
    """The paper's S2: generated code vs functions (top depth) and vs classes (top depth); with
    a kind filter, just the kinds asked for."""
    if not code.strip():
        return []
    vector = ctx.embedder.embed([code])[0]
    depth = ctx.depth["S2"]
    if ctx.function_kinds != FUNCTION_KINDS:
        return _vector_hits(ctx, vector, n=depth, kinds=ctx.function_kinds)
    functions = _vector_hits(ctx, vector, n=depth, kinds=FUNCTION_KINDS)
    classes = _vector_hits(ctx, vector, n=depth, kinds=CLASS_KINDS)
    return sorted(functions + classes, key=lambda hit: -hit[1])


@_timed("S3")
def component_functions_stream(
    ctx: StreamContext, components: Sequence[str]
) -> list[tuple[int, float]]:
    """Each generated component function contributes its best-matching real functions."""
    if not components:
        return []
    depth = ctx.depth["S3"]
    best: dict[int, float] = {}
    for vector in ctx.embedder.embed(list(components)):
        for unit_id, score in _vector_hits(ctx, vector, n=depth, kinds=ctx.function_kinds)[:depth]:
            best[unit_id] = max(score, best.get(unit_id, -1.0))
    return sorted(best.items(), key=lambda hit: -hit[1])


@_timed("S4")
def lexical_stream(ctx: StreamContext, query: str) -> list[tuple[int, float]]:
    """BM25 over identifiers, docstrings and code, within the filters."""
    index, scores = ctx.lexical(query)
    mask = None
    if ctx.filters.active:
        rows = active_units(repository=ctx.repository).values_list("pk", "path", "kind", "language")
        allowed = [pk for pk, *unit in rows if ctx.filters.allows(*unit)]
        mask = np.isin(index.unit_ids, np.array(allowed, dtype=np.int64)).astype(np.float32)
    return index.search(query, n=ctx.depth["S4"], mask=mask, scores=scores)


@_timed("S7")
def definitions_stream(ctx: StreamContext, query: str) -> list[tuple[int, float]]:
    """A name typed as the query is answered by its definition, which the vector and lexical
    streams may rank below the many units that mention it: gather the definitions by name.
    Classes first, then functions, methods and module blocks; a dotted name's exact qualname
    before the same name under another parent. A sentence gathers the definitions of the code
    names it mentions (CamelCase, snake_case, dotted), if any."""
    shape = query_shape(query)
    # A sentence that names code ("how does HTTPAdapter retry?") gathers those definitions.
    names = [shape.name] if shape.name else sorted(shape.mentioned)[:3]
    if not names:
        return []
    # In memory per generation (search.name_index): a dotted name may be one unit's own
    # (`Shop.Stock`), an Elixir `map` asks for `map/2`, a module block binds names too.
    found = name_index(ctx.generation).lookup(names, name_variants, shape.dotted)
    if ctx.filters.active:
        found = [u for u in found if ctx.filters.allows(u.path, u.kind, u.language)]

    def match(unit: CodeUnit) -> float:
        if shape.name:
            return definition_match(unit, shape)
        return 0.5 if any(defines(unit, name) for name in names) else 0.0

    order = {CodeUnit.Kind.CLASS: 0, CodeUnit.Kind.FUNCTION: 1, CodeUnit.Kind.METHOD: 2}
    # Matched exactly before the cut: the text match above is case-blind.
    matches = [(score, order.get(u.kind, 3), u.pk) for u in found if (score := match(u)) > 0]
    matches.sort(key=lambda m: (-m[0], m[1], m[2]))
    return [(pk, score) for score, _, pk in matches[: ctx.depth["S7"]]]


@_timed("S5")
def augmented_query_stream(ctx: StreamContext, augmented: str) -> list[tuple[int, float]]:
    """The agent's augmented query against functions."""
    if not augmented.strip():
        return []
    vector = ctx.embedder.embed([augmented])[0]
    return _vector_hits(ctx, vector, n=ctx.depth["S5"], kinds=ctx.function_kinds)
