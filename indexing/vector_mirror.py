"""A generation's vectors in the process's memory, for scoring a search's candidates.

The learned ranker needs the query's cosine with the code and the header vector of every
candidate (one to two hundred), however each was found. Chroma answers that from its files in
6 to 15 ms a field at 24k units (`get` copies every vector out to Python; a query restricted to
the ids grows with the collection), most of a fast-mode search once everything else is cut. A
process therefore keeps a copy of each recently searched generation's vectors as one matrix: a
lookup is a gather and a product, a small fraction of a millisecond.

Copying takes about a second per 20k vectors, so it runs in a background thread the first time
a generation is searched, and searches meanwhile ask the store as before. A copy belongs to one
generation (`indexing.lexical.generation_key`), one model and one field: a new generation copies
its own (a unit's vectors never change, but a database reset beside a living process can hand
out ids again). An id the copy lacks (a vector written after the copy was made) is asked of the
store. The process holds at most `MAX_VECTORS` copied vectors; a larger generation is not
copied, and the least recently used copies make room for new ones. Stores whose vectors are in
memory already (`in_memory`, the static tier's segment files) are used as they are.

A loaded copy also gets an HNSW graph (faiss), and the query streams' nearest-neighbour searches
without a kind filter are answered from it: the same kind of search as Chroma's, but in-process,
0.5 ms against 1.5 to 1.8 for Chroma's query at 24k vectors (docs/BENCHMARKS.md), most of what
separated a new query from the 10 ms target. The graph is built in the background when a search
first finds the copy loaded (or at a server's warm-up), not with the copy: a one-shot process
(`reporift search`) that waits for its copy before exiting should not wait for a graph it will
never ask. Chroma remains the store of record; a search with a kind filter, or one before the
graph is built, asks it.

Building the graph is the costly part (seconds a field at 24k vectors), so it is done once, when
the transformer's vectors of a generation are complete (the end of phase 2, or a publish that
embedded a small change before its switch), and saved beside the data (`save_graphs`: the graph
holds the vectors, with their ids beside it); a process that copies a generation reads the saved
graph instead of asking the store and building (a fraction of a second), and the files go with
their generation.

A server copies and builds all of this before it takes requests (search.warmup). An index run
in a process that searches the repository (a server without a broker runs its index runs in a
thread) copies the new generation's vectors and builds their graphs before the switch
(`prepare_generation`), and drops the old generation's copies after it: the first searches of
the new generation are then as fast as the last ones of the old.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexing.lexical import Generation, generation_key
from indexing.store import FIELDS, VectorHit, VectorStore

logger = logging.getLogger(__name__)

# The graph's shape, from one trial at 24k vectors: its first 50 of 100 hold 98.5% of an exact
# search's first 50, built in about 3 s a field on one thread (docs/BENCHMARKS.md).
GRAPH_LINKS = 32
GRAPH_BUILD_EF = 80
GRAPH_SEARCH_EF = 100

# About 300 MB of float32 vectors of 384 dimensions: twelve repositories of 24k units, both
# fields.
MAX_VECTORS = 200_000
# How long an index run's switch waits for the new generation's copies and graphs (about 4 s
# at 24k units): past it, the switch goes on and they finish beside the first searches.
PREPARE_WAIT_S = 60.0


@dataclass
class _Copy:
    loaded: threading.Event = field(default_factory=threading.Event)
    pid: int = field(default_factory=os.getpid)  # a thread does not survive a fork
    row_of: dict[str, int] = field(default_factory=dict)
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    failed: bool = False
    ids: list[str] = field(default_factory=list)  # row -> vector id
    graph: object | None = None  # a faiss HNSW index over `matrix`, once built
    graph_started: bool = False
    graphed: threading.Event = field(default_factory=threading.Event)  # built, or given up

    @property
    def size(self) -> int:
        return len(self.row_of)


class _Copies:
    def __init__(self) -> None:
        self.items: OrderedDict[tuple, _Copy] = OrderedDict()
        self.lock = threading.Lock()
        # The repositories whose vectors this process has copied: those it searches.
        self.searched: set[int] = set()

    def copy_for(self, key: tuple, load) -> _Copy | None:
        """The loaded copy, or None while it loads (the first ask starts the load)."""
        with self.lock:
            copy = self.items.get(key)
            if copy is not None and copy.pid != os.getpid():
                copy = None  # its loader stayed in the parent process
            if copy is None:
                copy = self.items[key] = _Copy()
                self.searched.add(key[2])
                # Not a daemon: an interpreter torn down while the copy is inside Chroma's
                # native code crashes (`reporift search` printed its answer, then ended with
                # SIGSEGV); exit waits for the copy instead (a second per 20k vectors).
                threading.Thread(
                    target=load, args=(key, copy), name="vector-mirror", daemon=False
                ).start()
                return None
            self.items.move_to_end(key)
        return copy if copy.loaded.is_set() and not copy.failed else None

    def graph_for(self, copy: _Copy, key: tuple):
        """The loaded copy's graph, or None while it is built (the first ask starts that)."""
        with self.lock:
            if not copy.graph_started:
                copy.graph_started = True
                # Not a daemon, as the copy's loader: faiss's native code at teardown.
                threading.Thread(
                    target=_build_graph, args=(key, copy), name="vector-graph", daemon=False
                ).start()
                return None
        return copy.graph

    def fit(self, key: tuple, copy: _Copy) -> None:
        """Drop the least recently used copies until the process holds at most MAX_VECTORS.
        A copy that alone exceeds that is emptied but stays listed, so that searches of its
        generation go to the store without loading it again."""
        with self.lock:
            if copy.size > MAX_VECTORS:
                copy.row_of, copy.matrix, copy.failed = {}, copy.matrix[:0], True
                return
            total = sum(c.size for c in self.items.values())
            while total > MAX_VECTORS:
                old_key, old = next(iter(self.items.items()))
                if old_key == key:
                    break
                del self.items[old_key]
                total -= old.size

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.searched.clear()

    def forget_others(self, repository_id: int, generation: str) -> None:
        with self.lock:
            for key in [k for k in self.items if k[2] == repository_id and k[1] != generation]:
                del self.items[key]


_copies = _Copies()


class MirroredStore:
    """A vector store whose `scores` come from a copy of one generation's vectors in memory
    once the copy is loaded; everything else goes to the store itself."""

    def __init__(
        self, store: VectorStore, *, model_id: str, generation: Generation, graph: bool = True
    ) -> None:
        self.store = store
        self.model_id = model_id
        self.generation_key = generation_key(generation)
        self.graph = graph  # answer queries from the copy's HNSW graph once it is built

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
        field: str = "code",
    ) -> list[VectorHit]:
        key = (self.model_id, self.generation_key, repository_id, field)
        copy = _copies.copy_for(key, self._load) if self.graph and not kinds else None
        graph = _copies.graph_for(copy, key) if copy is not None and copy.size else None
        if graph is None:
            return self.store.query(
                vector, repository_id=repository_id, n=n, kinds=kinds, field=field
            )
        scores, rows = graph.search(np.asarray(vector, np.float32)[None, :], max(1, n))
        return [
            VectorHit(copy.ids[row], float(score))
            for score, row in zip(scores[0].tolist(), rows[0].tolist(), strict=True)
            if row >= 0  # fewer vectors than asked for
        ]

    def prefetch(self, *, repository_id: int, wait_s: float = 0.0) -> bool:
        """Start copying the generation's vectors of both fields, and then their graphs (a
        server warming up, so that its first searches need not ask the store); with `wait_s`,
        wait that long for them. Whether both are loaded (and their graphs built or given up)."""
        keys = [(self.model_id, self.generation_key, repository_id, f) for f in FIELDS]
        for key in keys:
            _copies.copy_for(key, self._load)
        deadline = time.monotonic() + wait_s
        for key in keys:
            copy = _copies.items.get(key)
            if copy is None or not copy.loaded.wait(max(0.0, deadline - time.monotonic())):
                return False
            if self.graph and not copy.failed and copy.size:
                _copies.graph_for(copy, key)
        for key in keys:
            copy = _copies.items[key]
            if copy.graph_started and not copy.graphed.wait(max(0.0, deadline - time.monotonic())):
                return False
        return True

    def scores(
        self,
        vector: np.ndarray,
        vector_ids: Sequence[str],
        *,
        repository_id: int,
        field: str = "code",
    ) -> dict[str, float]:
        key = (self.model_id, self.generation_key, repository_id, field)
        copy = _copies.copy_for(key, self._load)
        if copy is None:
            return self.store.scores(vector, vector_ids, repository_id=repository_id, field=field)
        ids = list(dict.fromkeys(vector_ids))
        known = [i for i in ids if i in copy.row_of]
        found: dict[str, float] = {}
        if known:  # (a copy of an empty field has no columns to multiply)
            rows = copy.matrix[[copy.row_of[i] for i in known]]
            values = rows @ np.asarray(vector, np.float32)
            found = {i: float(v) for i, v in zip(known, values, strict=True)}
        missing = [i for i in ids if i not in copy.row_of]
        if missing:
            found |= self.store.scores(vector, missing, repository_id=repository_id, field=field)
        return found

    def _load(self, key: tuple, copy: _Copy) -> None:
        _, _, repository_id, field = key
        if _load_saved(key, copy):
            _copies.fit(key, copy)
            copy.loaded.set()
            return
        try:
            ids, matrix = self.store.all_vectors(repository_id=repository_id, field=field)
            copy.row_of = {vector_id: row for row, vector_id in enumerate(ids)}
            copy.ids, copy.matrix = list(ids), matrix
            _copies.fit(key, copy)
        except Exception:  # the store is asked directly instead, and says what is wrong
            logger.exception("could not copy the vectors of %s", key)
            copy.failed = True
        finally:
            copy.loaded.set()


def _saved_paths(key: tuple) -> tuple[Path, Path]:
    """Where a generation field's graph and its ids are saved."""
    from django.conf import settings

    model_id, generation, repository_id, field = key
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"{model_id}-{generation}-{repository_id}-{field}")
    folder = Path(settings.DATA_DIR) / "vector-graphs"
    return folder / f"{safe}.faiss", folder / f"{safe}.ids.npy"


def _load_saved(key: tuple, copy: _Copy) -> bool:
    """The copy and its graph from the files `save_graphs` wrote; whether there were any."""
    graph_path, ids_path = _saved_paths(key)
    if not (graph_path.exists() and ids_path.exists()):
        return False
    try:
        import faiss

        graph = faiss.read_index(str(graph_path))
        ids = np.load(ids_path, allow_pickle=False).tolist()
        if graph.ntotal != len(ids):
            raise ValueError(f"{graph.ntotal} vectors but {len(ids)} ids")
        graph.hnsw.efSearch = GRAPH_SEARCH_EF
        storage = faiss.downcast_index(graph.storage)
        matrix = faiss.rev_swig_ptr(storage.get_xb(), graph.ntotal * graph.d)
        copy.matrix = matrix.reshape(graph.ntotal, graph.d)
        copy.ids = [str(i) for i in ids]
        copy.row_of = {vector_id: row for row, vector_id in enumerate(copy.ids)}
        copy.graph, copy.graph_started = graph, True
        copy.graphed.set()
        return True
    except Exception:  # a damaged file: copy from the store and build, as before
        logger.exception("could not read the saved graph %s", graph_path)
        return False


def save_graphs(run, store: VectorStore, *, model_id: str) -> None:
    """Build each field's graph of the generation's vectors and save it with their ids, so that
    no process has to build it again (the end of phase 2). Written under a temporary name and
    renamed: a process never reads half a graph."""
    import faiss

    for name in FIELDS:
        key = (model_id, generation_key(run), run.repository_id, name)
        ids, matrix = store.all_vectors(repository_id=run.repository_id, field=name)
        if not len(ids):
            continue
        graph, _ = _graph(np.asarray(matrix, np.float32))
        graph_path, ids_path = _saved_paths(key)
        graph_path.parent.mkdir(parents=True, exist_ok=True)
        partial = graph_path.with_suffix(".partial")
        faiss.write_index(graph, str(partial))
        np.save(ids_path.with_suffix(".partial.npy"), np.asarray(ids, dtype=str))
        os.replace(ids_path.with_suffix(".partial.npy"), ids_path)
        os.replace(partial, graph_path)


def drop_saved_graphs(run: Generation) -> None:
    """A generation's saved graphs, when it is no longer searched."""
    from django.conf import settings

    folder = Path(settings.DATA_DIR) / "vector-graphs"
    if folder.is_dir():
        for path in folder.glob(f"*-{generation_key(run)}-*"):
            path.unlink(missing_ok=True)


def _build_graph(key: tuple, copy: _Copy) -> None:
    """About 3 s per 24k vectors on one thread; the store answers the queries meanwhile, and
    for good if it cannot be built."""
    try:
        copy.graph, copy.matrix = _graph(copy.matrix)
    except Exception:
        logger.exception("could not build the HNSW graph of %s", key)
    finally:
        copy.graphed.set()


def _graph(matrix: np.ndarray):
    """An HNSW graph over `matrix`'s rows (inner product: the rows are unit vectors), and the
    matrix as the graph holds it: the copy then keeps one set of the vectors, not two."""
    import faiss

    faiss.omp_set_num_threads(1)  # this thread's: searches must keep the other core
    graph = faiss.IndexHNSWFlat(matrix.shape[1], GRAPH_LINKS, faiss.METRIC_INNER_PRODUCT)
    graph.hnsw.efConstruction = GRAPH_BUILD_EF
    graph.add(np.ascontiguousarray(matrix, dtype=np.float32))
    graph.hnsw.efSearch = GRAPH_SEARCH_EF
    stored = faiss.rev_swig_ptr(faiss.downcast_index(graph.storage).get_xb(), matrix.size)
    return graph, stored.reshape(matrix.shape)


def mirrored(
    store: VectorStore, *, model_id: str, generation: Generation, graph: bool = True
) -> VectorStore:
    """`store` with its candidate scores served from memory, and its unfiltered queries from an
    HNSW graph in memory (`graph`), unless it holds its vectors in memory already."""
    if getattr(store, "in_memory", False):
        return store
    return MirroredStore(store, model_id=model_id, generation=generation, graph=graph)


def prepare_generation(run, *, wait_s: float = PREPARE_WAIT_S) -> bool:
    """Before an index run's generation becomes the one searches read: its vectors copied and
    their graphs built in this process, if it searches the repository (it holds a copy of an
    earlier generation's), so that the first searches after the switch do not ask the store
    while they load. A process that only indexes (a worker) copies nothing. Whether the copies
    are ready."""
    from django.conf import settings

    from indexing.store import VectorStoreUnavailable, get_vector_store

    if not run.embedder_model or run.repository_id not in _copies.searched:
        return False
    try:
        store = get_vector_store(run.embedder_model)
    except VectorStoreUnavailable:
        return False
    mirror = mirrored(
        store,
        model_id=run.embedder_model,
        generation=run,
        graph=settings.REPORIFT["SEARCH"]["VECTOR_GRAPH"],
    )
    if not isinstance(mirror, MirroredStore):
        return False  # its vectors are in memory already (the static tier's)
    return mirror.prefetch(repository_id=run.repository_id, wait_s=wait_s)


def forget_other_generations(run: Generation, *, repository_id: int) -> None:
    """After a switch: the copies of the repository's earlier generations, which no search
    reads any more, leave memory now rather than when the bound pushes them out."""
    _copies.forget_others(repository_id, generation_key(run))


def forget_copies() -> None:
    """Drop every copy (tests that reset the stores)."""
    _copies.clear()
