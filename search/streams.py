"""Retrieval streams. Each is a small component: inputs in, a ranked list of (unit id, score)
out, with its own latency. The orchestration in `search.services` decides which run.

S1 query embedding vs functions     S2 generated code vs functions and vs classes
S3 each component function vs functions (best match each)
S4 BM25 over identifiers, docstrings and code     S5 augmented query vs functions
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from indexing.embedding import Embedder
from indexing.lexical import LexicalIndex
from indexing.models import CodeUnit
from indexing.store import VectorStore

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
    repository_id: int
    embedder: Embedder
    store: VectorStore
    # How many raw hits to ask for per requested one: stale ids of other generations and
    # filtered-out units are dropped after the store answers.
    overfetch: int = 2
    # The kinds the "functions" streams search: functions and methods, as in the paper, unless
    # the user asked for specific kinds.
    function_kinds: tuple[str, ...] = FUNCTION_KINDS


def _timed(name: str):
    def wrap(fn):
        def run(*args, **kwargs) -> StreamResult:
            start = time.perf_counter()
            try:
                hits = fn(*args, **kwargs)
                error = ""
            except Exception as exc:  # one broken stream must not sink the others
                hits, error = [], f"{type(exc).__name__}: {exc}"
            return StreamResult(name, hits, (time.perf_counter() - start) * 1000, error)

        run.__name__ = fn.__name__
        return run

    return wrap


def _vector_hits(
    ctx: StreamContext, vector: np.ndarray, *, n: int, kinds: Sequence[str]
) -> list[tuple[int, float]]:
    hits = ctx.store.query(
        vector, repository_id=ctx.repository_id, n=n * ctx.overfetch, kinds=list(kinds)
    )
    return [(int(h.vector_id), h.score) for h in hits if h.vector_id.isdigit()]


@_timed("S1")
def query_stream(ctx: StreamContext, query: str, *, depth: int) -> list[tuple[int, float]]:
    return _vector_hits(ctx, ctx.embedder.embed([query])[0], n=depth, kinds=ctx.function_kinds)


@_timed("S2")
def generated_code_stream(ctx: StreamContext, code: str, *, depth: int) -> list[tuple[int, float]]:
    """The paper's S2: generated code vs functions (top depth) and vs classes (top depth)."""
    if not code.strip():
        return []
    vector = ctx.embedder.embed([code])[0]
    functions = _vector_hits(ctx, vector, n=depth, kinds=FUNCTION_KINDS)
    classes = _vector_hits(ctx, vector, n=depth, kinds=CLASS_KINDS)
    if ctx.function_kinds != FUNCTION_KINDS:  # a kind filter: search just what was asked for
        functions = _vector_hits(ctx, vector, n=depth, kinds=ctx.function_kinds)
        classes = []
    return sorted(functions + classes, key=lambda hit: -hit[1])


@_timed("S3")
def component_functions_stream(
    ctx: StreamContext, components: Sequence[str], *, depth: int
) -> list[tuple[int, float]]:
    """Each generated component function contributes its best-matching real functions."""
    if not components:
        return []
    vectors = ctx.embedder.embed(list(components))
    best: dict[int, float] = {}
    for vector in vectors:
        for unit_id, score in _vector_hits(ctx, vector, n=depth, kinds=ctx.function_kinds)[:depth]:
            best[unit_id] = max(score, best.get(unit_id, -1.0))
    return sorted(best.items(), key=lambda hit: -hit[1])


@_timed("S4")
def lexical_stream(
    index: LexicalIndex, query: str, *, depth: int, mask: np.ndarray | None = None
) -> list[tuple[int, float]]:
    return index.search(query, n=depth, mask=mask)


@_timed("S5")
def augmented_query_stream(
    ctx: StreamContext, augmented: str, *, depth: int
) -> list[tuple[int, float]]:
    if not augmented.strip():
        return []
    return _vector_hits(ctx, ctx.embedder.embed([augmented])[0], n=depth, kinds=ctx.function_kinds)
