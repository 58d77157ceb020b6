"""The in-memory copy of a generation's vectors scores candidates as the store does, is used
only once loaded, asks the store for what it lacks, and keeps within its bound."""

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from indexing import vector_mirror
from indexing.segment_store import SegmentVectorStore
from indexing.store import ChromaVectorStore, VectorRecord
from indexing.vector_mirror import MirroredStore, mirrored

DIM = 8
ROOT = Path(__file__).resolve().parents[2]


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM], v[(i + 3) % DIM] = 1.0, 0.5
    return v / np.linalg.norm(v)


@pytest.fixture
def store(tmp_path):
    store = ChromaVectorStore(path=str(tmp_path / "chroma"), model_id="mirror-test")
    records = [VectorRecord(str(i), 1, "function", f"m{i}.py") for i in range(20)]
    store.upsert(records, np.stack([unit(i) for i in range(20)]))
    return store


def generation(pk: int = 1):
    return SimpleNamespace(pk=pk, created_at=datetime(2026, 11, 25, tzinfo=UTC))


def loaded(mirror: MirroredStore, field: str = "code"):
    key = (mirror.model_id, mirror.generation_key, 1, field)
    copy = vector_mirror._copies.items[key]
    assert copy.loaded.wait(10)
    return copy


class CountingStore:
    """Counts what reaches the real store."""

    def __init__(self, store):
        self.store, self.asked = store, []

    def scores(self, vector, ids, **kwargs):
        self.asked.append(list(ids))
        return self.store.scores(vector, ids, **kwargs)

    def all_vectors(self, **kwargs):
        return self.store.all_vectors(**kwargs)


def test_scores_match_the_store_and_come_from_memory_once_loaded(store):
    counting = CountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    query, ids = unit(4), ["4", "7", "12", "4"]
    first = mirror.scores(query, ids, repository_id=1)  # the copy is loading: the store answers
    assert counting.asked == [ids]
    loaded(mirror)
    again = mirror.scores(query, ids, repository_id=1)
    assert counting.asked == [ids]  # nothing more asked of the store
    assert set(again) == {"4", "7", "12"} == set(first)
    for vector_id in again:
        assert again[vector_id] == pytest.approx(first[vector_id], abs=1e-5)


def test_ids_the_copy_lacks_are_asked_of_the_store(store):
    counting = CountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    mirror.scores(unit(1), ["1"], repository_id=1)
    loaded(mirror)
    store.upsert([VectorRecord("50", 1, "function", "new.py")], np.stack([unit(2)]))
    found = mirror.scores(unit(2), ["1", "50", "missing"], repository_id=1)
    assert counting.asked[-1] == ["50", "missing"]
    assert found["50"] == pytest.approx(1.0, abs=1e-5) and "missing" not in found


def test_each_generation_and_field_has_its_own_copy(store):
    first = MirroredStore(store, model_id="m", generation=generation(1))
    second = MirroredStore(store, model_id="m", generation=generation(2))
    for mirror in (first, second):
        mirror.scores(unit(1), ["1"], repository_id=1)
        mirror.scores(unit(1), ["1"], repository_id=1, field="header")
    assert len(vector_mirror._copies.items) == 4
    assert loaded(first, "header").size == 0  # nothing was written to the header field
    # A loaded copy of an empty field answers from the store (which has nothing either).
    assert first.scores(unit(1), ["1"], repository_id=1, field="header") == {}


def test_copies_stay_within_the_bound(store, monkeypatch):
    monkeypatch.setattr(vector_mirror, "MAX_VECTORS", 30)
    mirrors = [MirroredStore(store, model_id="m", generation=generation(g)) for g in (1, 2)]
    for mirror in mirrors:
        mirror.scores(unit(1), ["1"], repository_id=1)
        loaded(mirror)
    # 20 vectors each: the older copy made room for the newer one.
    assert [key[1] for key in vector_mirror._copies.items] == [mirrors[1].generation_key]
    monkeypatch.setattr(vector_mirror, "MAX_VECTORS", 10)
    big = MirroredStore(store, model_id="m", generation=generation(3))
    big.scores(unit(1), ["1"], repository_id=1)
    assert loaded(big).failed and loaded(big).size == 0  # too large: not kept, not reloaded
    assert big.scores(unit(1), ["1"], repository_id=1)["1"] == pytest.approx(1.0, abs=1e-5)
    assert len([key for key in vector_mirror._copies.items if key[1] == big.generation_key]) == 1


def test_a_copy_that_cannot_load_leaves_the_store_answering(store):
    class Broken(CountingStore):
        def all_vectors(self, **kwargs):
            raise RuntimeError("disk gone")

    broken = Broken(store)
    mirror = MirroredStore(broken, model_id="m", generation=generation())
    mirror.scores(unit(3), ["3"], repository_id=1)
    assert loaded(mirror).failed
    assert mirror.scores(unit(3), ["3"], repository_id=1)["3"] == pytest.approx(1.0, abs=1e-5)
    assert len(broken.asked) == 2


def test_a_store_in_memory_is_used_as_it_is(tmp_path):
    segments = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
    assert mirrored(segments, model_id="m", generation=generation()) is segments


def test_a_process_exits_after_the_copy_it_started(tmp_path):
    """A one-shot process (`reporift search`) that leaves while a copy loads waits for it: torn
    down under a copy inside Chroma's native code, the interpreter crashed."""
    done = tmp_path / "copied"
    code = (
        "import time\n"
        "from indexing.vector_mirror import _copies\n"
        "def load(key, copy):\n"
        "    time.sleep(0.5)\n"
        f"    open({str(done)!r}, 'w').close()\n"
        "_copies.copy_for(('m', 1, 1, 'code'), load)\n"
    )
    exited = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=60)
    assert exited.returncode == 0 and done.exists()


def random_units(count: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class QueryCountingStore(CountingStore):
    def __init__(self, store):
        super().__init__(store)
        self.queried = 0

    def query(self, vector, **kwargs):
        self.queried += 1
        return self.store.query(vector, **kwargs)


def graphed(mirror: MirroredStore, field: str = "code"):
    copy = loaded(mirror, field)
    assert copy.graphed.wait(30)
    return copy


def test_queries_are_answered_by_the_graph_once_built_as_the_store_answers(tmp_path):
    store = ChromaVectorStore(path=str(tmp_path / "chroma"), model_id="graph-test")
    vectors = random_units(300)
    records = [VectorRecord(str(i), 1, "function", f"m{i}.py") for i in range(300)]
    store.upsert(records, vectors)
    counting = QueryCountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    query = random_units(1, seed=1)[0]
    before = mirror.query(query, repository_id=1, n=10)  # the copy is loading: Chroma answers
    copy = loaded(mirror)
    assert not copy.graph_started  # a one-shot search never waits for a graph at exit
    mirror.query(query, repository_id=1, n=10)  # the copy is there: its graph is started
    assert counting.queried == 2
    assert graphed(mirror).graph is not None
    after = mirror.query(query, repository_id=1, n=10)
    assert counting.queried == 2  # from the graph
    exact = np.argsort(-(vectors @ query))[:10]
    assert [h.vector_id for h in after] == [str(i) for i in exact]
    assert [h.vector_id for h in after] == [h.vector_id for h in before]
    for hit in after:
        assert hit.score == pytest.approx(float(vectors[int(hit.vector_id)] @ query), abs=1e-5)
    # The candidates' scores read the graph's own copy of the vectors, which stayed the same.
    scores = mirror.scores(query, ["5", "17"], repository_id=1)
    assert scores["5"] == pytest.approx(float(vectors[5] @ query), abs=1e-5)
    assert np.allclose(copy.matrix, vectors, atol=1e-6)
    # More than there are: what the graph reaches of them, each once (no empty slots).
    every = [h.vector_id for h in mirror.query(query, repository_id=1, n=500)]
    assert 250 <= len(every) == len(set(every)) <= 300


def test_a_warm_up_builds_the_graphs_of_the_fields_that_have_vectors(store):
    counting = QueryCountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    assert mirror.prefetch(repository_id=1, wait_s=30)
    assert loaded(mirror).graph is not None
    assert not loaded(mirror, "header").graph_started  # nothing written to the header field
    assert mirror.query(unit(2), repository_id=1, n=1)[0].vector_id in {"2", "10", "18"}
    assert counting.queried == 0
    assert mirror.query(unit(2), repository_id=1, n=1, field="header") == []
    assert counting.queried == 1


def test_a_kind_filter_or_the_graph_turned_off_asks_the_store(store):
    counting = QueryCountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    assert mirror.prefetch(repository_id=1, wait_s=30)
    hits = mirror.query(unit(2), repository_id=1, n=3, kinds=["function"])
    assert counting.queried == 1 and hits[0].vector_id in {"2", "10", "18"}
    off = MirroredStore(counting, model_id="m", generation=generation(), graph=False)
    off.query(unit(2), repository_id=1, n=3)
    assert counting.queried == 2


def test_a_graph_that_cannot_be_built_leaves_the_copy_and_the_store(store, monkeypatch):
    def broken(matrix):
        raise RuntimeError("no faiss here")

    monkeypatch.setattr(vector_mirror, "_graph", broken)
    counting = QueryCountingStore(store)
    mirror = MirroredStore(counting, model_id="m", generation=generation())
    assert mirror.prefetch(repository_id=1, wait_s=30)
    copy = graphed(mirror)
    assert copy.graph is None and not copy.failed
    assert mirror.query(unit(2), repository_id=1, n=1)[0].vector_id in {"2", "10", "18"}
    assert counting.queried == 1
    assert mirror.scores(unit(2), ["2"], repository_id=1)["2"] == pytest.approx(1.0, abs=1e-5)


class NoCopyStore(CountingStore):
    """Refuses to be copied: a copy must come from the saved graph."""

    def all_vectors(self, **kwargs):
        raise AssertionError("copied from the store instead of the saved graph")

    def query(self, *args, **kwargs):
        raise AssertionError("asked the store instead of the saved graph")


def test_a_saved_graph_is_read_instead_of_copying_and_building(store, settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    run = SimpleNamespace(repository_id=1, **vars(generation(7)))
    vector_mirror.save_graphs(run, store, model_id="mirror-test")
    assert len(list((tmp_path / "data" / "vector-graphs").glob("*.faiss"))) == 1  # code only
    vector_mirror.forget_copies()
    mirror = MirroredStore(NoCopyStore(store), model_id="mirror-test", generation=run)
    assert mirror.prefetch(repository_id=1, wait_s=10)
    copy = loaded(mirror)
    assert copy.graph is not None and copy.graphed.is_set() and copy.size == 20
    hits = mirror.query(unit(5), repository_id=1, n=3)
    assert hits[0].vector_id in ("5", "13") and hits[0].score == pytest.approx(1.0, abs=1e-5)
    scores = mirror.scores(unit(5), ["5", "6"], repository_id=1)
    assert scores["5"] == pytest.approx(1.0, abs=1e-5)
    vector_mirror.drop_saved_graphs(run)
    assert not list((tmp_path / "data" / "vector-graphs").iterdir())
