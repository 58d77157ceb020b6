"""Which of many repositories answer a question in words: one pass over the static vectors of
every repository the caller may see, before any of them is ranked.

Ranking a repository's candidates (features, the learned ranker, the file evidence, results)
costs 15 to 30 ms on 2 cores whatever the answer; over sixty repositories that was most of a
second. The static tier's code vectors are in memory for every indexed repository (a generation
keeps them after phase 2) and one query vector serves them all, so a scan of every repository's
vectors costs what a scan of one repository of their summed size costs. The repositories whose
best units match the question best are then searched in full and their results merged
(`search.across`); the others are counted, never shown. Only the repositories the caller may
see are scanned: the permission filter is the list of repositories itself.

A repository's evidence is the mean cosine of its best `EVIDENCE_UNITS` units (one unit that
happens to share the question's words weighs less than a few that do) plus `WORDS` times CORI's
belief in its words (from its lexical index's word counts: the words that name a project's topic
are held by many of its units and by few other repositories), and a typed name routes first to
the repositories that define it. The settings were chosen on the large-repository dev set's
tuning part, every question asked over all 20 repositories (docs/BENCHMARKS.md, "All
repositories at once: routed").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from indexing.embedding import query_vector
from indexing.lexical import lexical_index_for_run, tokenize
from indexing.models import IndexRun, Repository
from indexing.selectors import active_generations
from indexing.store import VectorStoreUnavailable
from indexing.unit_cache import generation_units
from search.filters import SearchFilters
from search.name_index import name_index
from search.ranking.structure import definition_match, name_variants, query_shape
from search.retrieval import generation_embedder, retriever_store, search_config

logger = logging.getLogger(__name__)


@dataclass
class Evidence:
    repository: Repository
    cosines: list[float] = field(default_factory=list)  # its best units' cosines, best first
    defines_name: bool = False  # it defines the name typed as the query
    units: int = 0  # how many units its lexical index holds
    # Per word of the question: how many of its units hold the word.
    holding: list[int] = field(default_factory=list)

    def closeness(self, depth: int) -> float:
        top = self.cosines[:depth]
        return float(np.mean(top)) if top else 0.0


@dataclass
class Route:
    """The repositories of a search across many, best evidence first."""

    ranked: list[Evidence]
    unindexed: list[Repository]  # no finished index yet: not searched, named in the notices
    unrouted: list[Repository]  # indexed, but with no static vectors to compare: searched
    ms: float = 0.0

    def chosen(self, count: int, depth: int, words: float | None = None) -> list[Repository]:
        """The `count` repositories to search in full: those that define a typed name first,
        then by their evidence; every repository that could not be compared besides."""
        return [repository for repository, _ in self.shortfalls(count, depth, words)]

    def shortfalls(
        self, count: int, depth: int, words: float | None = None
    ) -> list[tuple[Repository, float]]:
        """`chosen`'s repositories, each with how far its evidence falls below the first
        one's (0 for the first, and for those that could not be compared: nothing speaks
        against them), which the merge weighs against its units' scores (`search.across`)."""
        words = search_config()["ACROSS"]["WORDS"] if words is None else words
        belief = self.word_belief() if words else [0.0] * len(self.ranked)
        evidence = [
            e.closeness(depth) + words * b for e, b in zip(self.ranked, belief, strict=True)
        ]
        order = sorted(
            range(len(self.ranked)),
            key=lambda n: (not self.ranked[n].defines_name, -evidence[n], n),
        )[:count]
        first = evidence[order[0]] if order else 0.0
        return [(self.ranked[n].repository, min(0.0, evidence[n] - first)) for n in order] + [
            (repository, 0.0) for repository in self.unrouted
        ]

    def word_belief(self) -> list[float]:
        """How strongly each repository's words speak for the question, by CORI (Callan, Lu
        and Croft, 1995: the inference network's belief that a collection satisfies a query,
        the standard for picking collections in distributed search): a word held by many of
        its units and by few other repositories counts most; the mean over the words."""
        if not self.ranked or not self.ranked[0].holding:
            return [0.0] * len(self.ranked)
        count = len(self.ranked)
        mean_units = max(1.0, float(np.mean([e.units for e in self.ranked])))
        holding = np.array([e.holding for e in self.ranked], dtype=float)  # repository x word
        having = np.maximum(1.0, (holding > 0).sum(axis=0))
        rarity = np.log((count + 0.5) / having) / np.log(count + 1.0)
        units = np.array([e.units for e in self.ranked], dtype=float)[:, None]
        share = holding / (holding + 50 + 150 * units / mean_units)
        return list((0.4 + 0.6 * share * rarity).mean(axis=1))


def route(
    *,
    repositories: Sequence[Repository],
    query: str,
    filters: SearchFilters | None = None,
    units: int = 0,
) -> Route:
    """Every repository's best units for `query` under the static tier's vectors, in one pass.
    `units`: how many of each repository's best units to keep (the settings' by default)."""
    started = time.perf_counter()
    config = search_config()["ACROSS"]
    units = units or config["EVIDENCE_UNITS"]
    filters = filters or SearchFilters()
    shape = query_shape(query)
    words = list(dict.fromkeys(tokenize(query)))
    ranked, unindexed, unrouted = [], [], []
    vectors: dict[str, np.ndarray] = {}  # one query vector per static model
    generations = active_generations(repositories=repositories)
    for repository in repositories:
        generation = generations.get(repository.pk)
        if generation is None:
            unindexed.append(repository)
            continue
        try:
            cosines = _best_cosines(generation, repository, query, filters, units, vectors)
        except VectorStoreUnavailable as exc:
            logger.warning("routing %s by its vectors failed: %s", repository.name, exc)
            cosines = None
        if cosines is None:
            unrouted.append(repository)
            continue
        defines = bool(shape.name) and _defines(generation, shape, filters)
        units_held, holding = _holding(generation, words)
        ranked.append(Evidence(repository, cosines, defines, units_held, holding))
    if len(vectors) > 1:
        # Cosines under different static tables do not compare: search them all instead.
        unrouted += [e.repository for e in ranked]
        ranked = []
    return Route(ranked, unindexed, unrouted, round((time.perf_counter() - started) * 1000, 2))


def _best_cosines(
    generation: IndexRun,
    repository: Repository,
    query: str,
    filters: SearchFilters,
    units: int,
    vectors: dict[str, np.ndarray],
) -> list[float] | None:
    """The cosines of the generation's best units under its static vectors (None: it has none,
    e.g. a one-phase index made when no static table could be built)."""
    embedder = generation_embedder(generation, phase=1)
    if getattr(embedder, "worth_caching", True):  # the transformer: not a static tier
        return None
    if embedder.model_id not in vectors:
        vectors[embedder.model_id] = query_vector(embedder, query)
    store = retriever_store(generation, embedder=embedder)
    # Stale ids of older generations and units the filters leave out are dropped below.
    overfetch = 10 if filters.active else 2
    hits = store.query(
        vectors[embedder.model_id],
        repository_id=repository.pk,
        n=units * overfetch,
        kinds=list(filters.kinds) or None,
        field="code",
    )
    scored = [(int(h.vector_id), h.score) for h in hits if h.vector_id.isdigit()]
    held = lexical_index_for_run(generation).holds(u for u, _ in scored)
    if filters.active:
        rows = generation_units(generation, held)
        held = {pk for pk, u in rows.items() if filters.allows(u.path, u.kind, u.language)}
    return [score for unit_id, score in scored if unit_id in held][:units]


def _holding(generation: IndexRun, words: list[str]) -> tuple[int, list[int]]:
    """How many units the generation's lexical index holds, and how many of them hold each
    word (its column's length in the BM25 matrix)."""
    index = lexical_index_for_run(generation)
    if not index.indexed:
        return len(index.unit_ids), [0] * len(words)
    vocabulary, starts = index.retriever.vocab_dict, index.retriever.scores["indptr"]
    held = []
    for word in words:
        column = vocabulary.get(word)
        held.append(0 if column is None else int(starts[column + 1] - starts[column]))
    return len(index.unit_ids), held


def _defines(generation: IndexRun, shape, filters: SearchFilters) -> bool:
    found = name_index(generation).lookup([shape.name], name_variants, shape.dotted)
    return any(
        definition_match(unit, shape) > 0
        and (not filters.active or filters.allows(unit.path, unit.kind, unit.language))
        for unit in found
    )
