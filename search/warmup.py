"""Everything a search touches, made ready before a process takes its first request, so that
its first queries are answered as fast as its hundredth.

A fresh process otherwise pays, beside its first queries: the embedders' sessions, the vector
store, the learned ranker, each repository's lexical index (read from disk), the copy of its
vectors in memory and the HNSW graph over it (indexing.vector_mirror; until they are there, each
search asks Chroma for its candidates' scores, 6 to 15 ms a field at 24k units), and the
first-call costs of the code a search runs (the database connection and its statements, the
stemmer, the grammars), and reading and putting in words each new candidate unit. `warm_up`
loads all of them, waits for the copies and graphs, reads the units, then asks one search of
each repository; the servers call it before they take requests (the gunicorn
worker as it loads the application, reporift.wsgi; the command line's warm server before its
first answer). A process that indexes while it serves builds the new generation's structures
before the switch (indexing.phase2 and indexing.pipeline).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

# How long a warm-up waits for the vectors' copies and graphs (about 4 s a repository of 24k
# units on two busy cores): past it the server takes requests anyway and they finish beside
# them, so that a data dir of many large repositories cannot hold a worker past its timeout.
WAIT_S = 120.0
# Asked of each repository once, to run a search's whole path before a user does.
WARM_QUERY = "how does this work"


@dataclass
class WarmUp:
    """What a warm-up did: seconds per part, and whether every copy and graph was ready."""

    seconds: dict[str, float] = field(default_factory=dict)
    repositories: int = 0
    units: int = 0  # read and put in words ahead of the searches
    complete: bool = True


def warm_up(*, wait_s: float = WAIT_S, repositories: Sequence[int] | None = None) -> WarmUp:
    """`repositories`: warm only these (ids), as a server that holds only them would (the
    evaluation times each corpus's questions so); by default every searchable one."""
    done = WarmUp()
    started = time.perf_counter()

    def lap(part: str) -> None:
        nonlocal started
        done.seconds[part] = round(time.perf_counter() - started, 3)
        started = time.perf_counter()

    try:
        _load_models()
        _hold_every_repository()
        lap("models")
        done.complete = prefetch_vectors(wait_s=wait_s, lexical=True, only=repositories)
        lap("indexes")
        done.units = _read_units(only=repositories)
        lap("units")
        done.repositories = _ask_each_repository(only=repositories)
        lap("first search")
        _freeze_what_was_read()
        lap("freeze")
    except Exception:  # a broken part is reported by the first search that needs it
        logger.exception("warm-up failed")
        done.complete = False
    logger.info("warm-up: %s", done)
    return done


def _load_models() -> None:
    from indexing.embedding import get_embedder
    from indexing.static_tier import get_static_embedder
    from indexing.store import get_vector_store
    from search.ranking.model import RankerUnavailable, get_ranker

    get_embedder().embed(["warm up"])
    get_static_embedder()  # distilled here on a new install's first start
    get_vector_store()
    with contextlib.suppress(RankerUnavailable):  # off or refused: searches say so
        get_ranker()


def _hold_every_repository() -> None:
    """The per-generation caches (lexical indexes, names, file maps, import graphs) sized to
    hold every searchable repository, and as many again for the generations that replace them
    while they are re-indexed: a search over all repositories reads each one's."""
    from indexing.lexical import GenerationCache

    GenerationCache.hold(2 * _searchable().count())


def _searchable(only: Sequence[int] | None = None):
    """The repositories the process warms (those with an index; of `only`, when given),
    newest first."""
    from indexing.models import Repository

    searchable = Repository.objects.filter(active_run__isnull=False).order_by("-pk")
    return searchable if only is None else searchable.filter(pk__in=only)


def prefetch_vectors(
    *, wait_s: float = 0.0, lexical: bool = False, only: Sequence[int] | None = None
) -> bool:
    """Start copying searchable repositories' vectors into memory and building their graphs
    (newest first, those that fit within the copies' bound together), so that the first
    searches need not ask the store for their candidates' scores; with `wait_s`, wait that
    long for them; with `lexical`, load each one's lexical index meanwhile. Whether all those
    started are ready."""
    from indexing.lexical import lexical_index_for_run
    from indexing.selectors import active_generation
    from indexing.store import FIELDS
    from indexing.vector_mirror import MAX_VECTORS
    from search.file_map import file_map
    from search.name_index import name_index
    from search.retrieval import retriever_store

    deadline = time.monotonic() + wait_s
    # Copies past the bound would evict each other (the newest, loaded first, before the
    # rest): a repository that does not fit in what is left is skipped, not copied.
    room = MAX_VECTORS
    started = []
    for repository in _searchable(only).select_related("active_run"):
        generation = active_generation(repository=repository)
        if generation is None:
            continue
        vectors = repository.active_run.units_total * len(FIELDS)
        if vectors <= room:
            room -= vectors
            store = retriever_store(generation)
            if hasattr(store, "prefetch"):
                store.prefetch(repository_id=repository.pk)  # started, not waited for
                started.append((repository, store))
        if lexical:  # read from disk while the copies load
            lexical_index_for_run(generation)
            # The names a typed name is looked up in, the files an issue is located in, and
            # the words of their paths a question's files are weighed by.
            name_index(generation)
            _ = file_map(generation).path_words
    loaded = True
    for repository, store in started:
        left = max(0.0, deadline - time.monotonic())
        loaded &= store.prefetch(repository_id=repository.pk, wait_s=left)
    return loaded


def _read_units(*, only: Sequence[int] | None = None) -> int:
    """Each repository's unit rows read, and put in the words the ranker's features compare
    with the query, newest repository first, as many as the process keeps. Reading a search's
    new candidates (60 to 150 of them) and splitting their code into stemmed words cost more than
    the rest of the search, and a process's first queries meet mostly units it has not seen: this
    is what made the first minute of a fresh process three times slower than the next. Every
    unit's words saved for a generation (search.ranking.word_packs) are taken into the process's
    memo, those past the rows kept too; a generation without a pack has the words of the units
    read here computed, and saved for the next process."""
    from indexing.lexical import generation_key, lexical_index_for_run
    from indexing.selectors import active_generation
    from indexing.unit_cache import CACHED_UNITS, generation_units
    from search.ranking.features import MEMO, unit_words
    from search.ranking.word_packs import read_pack, write_pack

    room = CACHED_UNITS
    read = 0
    generations = [g for r in _searchable() if (g := active_generation(repository=r))]
    # Every searched generation's pack is kept, whichever are warmed now.
    keep = {generation_key(g) for g in generations}
    if only is not None:
        generations = [g for r in _searchable(only) if (g := active_generation(repository=r))]
    for generation in generations:
        packed = read_pack(generation)
        if packed is not None:
            MEMO.adopt(*packed)
        if room <= 0:
            continue
        ids = lexical_index_for_run(generation).unit_ids[:room].tolist()
        for start in range(0, len(ids), 2000):
            for unit in generation_units(generation, ids[start : start + 2000]).values():
                unit_words(unit)  # unpacked from the memo, or split and put there
                read += 1
        if packed is None and ids and (saved := MEMO.saved(ids))[1]:  # none: memo off
            try:
                write_pack(generation, saved, keep=keep)
            except OSError:  # a read-only or full data dir: the next process computes again
                logger.warning("could not save the word pack of %s", generation_key(generation))
        room -= len(ids)
    return read


def _freeze_what_was_read() -> None:
    """Put what the warm-up read out of the cyclic collector's reach. The rows, their words and
    the indexes are hundreds of thousands of objects that live as long as the process, and
    Python's oldest generation is collected by walking all of them: at 38k units (700k objects)
    one such pass took 0.75 s on the busy 2-core machine, paid by whichever query allocated at
    that moment, about once in a hundred (docs/BENCHMARKS.md, "Per-query speed on large
    repositories"). Frozen, they are never walked; what is read later is collected as before,
    and a later warm-up thaws what an earlier one froze first, so that cycles among what has
    gone since are still freed."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _ask_each_repository(*, only: Sequence[int] | None = None) -> int:
    """One search of each repository: the code a search runs, its database statements and the
    parts loaded on first use, paid here rather than by a user."""
    from search.results import SearchError
    from search.services import search

    asked = 0
    for repository in _searchable(only):
        with contextlib.suppress(SearchError):
            search(repository=repository, query=WARM_QUERY, k=10)
            asked += 1
    return asked
