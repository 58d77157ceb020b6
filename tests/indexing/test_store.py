import uuid

import pytest

from indexing.segment_store import SegmentVectorStore
from indexing.store import ChromaVectorStore, VectorRecord
from tests.contracts import VectorStoreContract


class TestChromaVectorStore(VectorStoreContract):
    @pytest.fixture
    def vector_store_backend(self, tmp_path):
        return ChromaVectorStore(
            path=str(tmp_path / "chroma"),
            collection_prefix=f"c{uuid.uuid4().hex[:8]}",
            model_id="contract-test",
        )

    def test_persists_across_clients(self, tmp_path):
        path = str(tmp_path / "persist")
        first = ChromaVectorStore(path=path, model_id="persist-test")
        self._fill(first)
        # A new process would open the same directory; a second client does the same here.
        second = ChromaVectorStore(path=path, model_id="persist-test")
        assert second.count(repository_id=1) == 6


class TestSegmentVectorStore(VectorStoreContract):
    @pytest.fixture
    def vector_store_backend(self, tmp_path):
        return SegmentVectorStore(path=str(tmp_path / "segments"), model_id="contract-test")

    def test_a_query_scans_the_float16_vectors_as_written_and_ranks_as_the_product(self, tmp_path):
        import numpy as np

        store = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        rng = np.random.default_rng(7)
        vectors = rng.standard_normal((300, 64)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        kinds = ["function", "class", "method"]
        records = [VectorRecord(str(i), 1, kinds[i % 3], "a.py") for i in range(300)]
        store.upsert(records, vectors)
        matrix = store._matrix(store._folder(1, "code"))
        # One copy, as written: the index's codes are the float16 rows.
        assert matrix.vectors.dtype == np.float16 and not matrix.vectors.flags.owndata
        query = rng.standard_normal(64).astype(np.float32)
        exact = vectors.astype(np.float16).astype(np.float32) @ query
        hits = store.query(query, repository_id=1, n=20)
        assert [h.vector_id for h in hits] == [str(i) for i in np.argsort(-exact)[:20]]
        assert np.allclose([h.score for h in hits], np.sort(exact)[::-1][:20], atol=1e-5)
        # A kind filter: only those kinds, best first, fewer than asked when fewer exist.
        classes = store.query(query, repository_id=1, n=500, kinds=["class"])
        assert len(classes) == 100 and {int(h.vector_id) % 3 for h in classes} == {1}
        assert [h.score for h in classes] == sorted((h.score for h in classes), reverse=True)
        # The candidates' scores are the same product.
        scores = store.scores(query, ["5", "17", "nope"], repository_id=1)
        assert set(scores) == {"5", "17"} and np.isclose(scores["17"], exact[17], atol=1e-5)

    def test_compaction_keeps_the_live_vectors_and_later_writes(self, tmp_path):
        import numpy as np

        store = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        for i in range(40):  # one file per upsert: enough to compact
            store.upsert(
                [VectorRecord(str(i), 1, "function", "a.py")], np.stack([self._unit(i, 64)])
            )
        store.delete(["3"], repository_id=1)
        before = {h.vector_id for h in store.query(self._unit(5, 64), repository_id=1, n=50)}
        store.compact(repository_id=1)
        folder = tmp_path / "segments" / "m" / "r1" / "code"
        assert len(list(folder.glob("*.npz"))) == 1
        # Another process's reader sees the same vectors.
        other = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        assert {
            h.vector_id for h in other.query(self._unit(5, 64), repository_id=1, n=50)
        } == before
        assert "3" not in before and other.count(repository_id=1) == 39
        # The compacting store kept what it folded: the same answers without reading the file.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("indexing.segment_store._replay", None)  # a read would fail
            assert {
                h.vector_id for h in store.query(self._unit(5, 64), repository_id=1, n=50)
            } == before
        store.upsert([VectorRecord("3", 1, "function", "a.py")], np.stack([self._unit(3, 64)]))
        assert other.query(self._unit(3, 64), repository_id=1, n=1)[0].vector_id == "3"

    def test_a_settled_folder_is_not_listed_again_and_a_later_write_is_still_seen(self, tmp_path):
        import os

        import numpy as np

        store = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        store.upsert([VectorRecord("1", 1, "function", "a.py")], np.stack([self._unit(1, 64)]))
        folder = tmp_path / "segments" / "m" / "r1" / "code"
        old = os.stat(folder).st_mtime_ns - 10_000_000_000
        os.utime(folder, ns=(old, old))  # written ten seconds ago
        assert store.count(repository_id=1) == 1  # lists it, and learns its time
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("indexing.segment_store._listing", None)  # a listing would fail
            assert store.query(self._unit(1, 64), repository_id=1, n=5)[0].vector_id == "1"
        # Another process writes: the folder's time moves, and this reader lists it again.
        other = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        other.upsert([VectorRecord("2", 1, "function", "b.py")], np.stack([self._unit(2, 64)]))
        assert store.query(self._unit(2, 64), repository_id=1, n=1)[0].vector_id == "2"

    def test_distinct_writes_read_as_their_replay(self, tmp_path):
        import numpy as np

        from indexing.segment_store import _fold, _listing, _load, _replay

        store = SegmentVectorStore(path=str(tmp_path / "segments"), model_id="m")
        folder = tmp_path / "segments" / "m" / "r1" / "code"

        def read() -> tuple:
            listing = _listing(folder)
            fast, replayed = _replay(folder, listing), _fold(listing, _load(folder, listing))
            for name in ("ids", "kinds", "vectors"):
                assert np.array_equal(getattr(fast, name), getattr(replayed, name)), name
                assert getattr(fast, name).dtype == getattr(replayed, name).dtype, name
            assert fast.row_of == replayed.row_of
            return fast.ids.tolist(), fast.vectors

        for batch in range(3):  # ids of several lengths, kinds of several lengths
            ids = [str(10**batch + k) for k in range(4)]
            records = [
                VectorRecord(i, 1, ("method", "class")[k % 2], "a.py") for k, i in enumerate(ids)
            ]
            store.upsert(records, np.stack([self._unit(int(i), 64) for i in ids]))
        ids, vectors = read()
        assert ids == ["1", "2", "3", "4", "10", "11", "12", "13", "100", "101", "102", "103"]
        # A rewritten id is replayed (the later vector wins) and so is a deleted one.
        store.upsert([VectorRecord("2", 1, "function", "a.py")], np.stack([self._unit(99, 64)]))
        store.delete(["11"], repository_id=1)
        ids, vectors = read()
        assert "11" not in ids and np.allclose(
            vectors[ids.index("2")], self._unit(99, 64), atol=1e-3
        )


def test_backends_are_built_once_under_concurrency():
    import threading
    import time

    from reporift.backends import once

    builds = []

    def build():
        builds.append(1)
        time.sleep(0.05)  # wide window for a second thread to arrive
        return object()

    get = once(build)
    results = []
    threads = [threading.Thread(target=lambda: results.append(get())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and len({id(r) for r in results}) == 1
    get.cache_clear()
    assert get() is not results[0] and len(builds) == 2


@pytest.mark.slow
class TestChromaServerVectorStore(VectorStoreContract):
    """The same store class against a Chroma server (`CHROMA_HOST`), over HTTP."""

    @pytest.fixture
    def vector_store_backend(self, chroma_server):
        return ChromaVectorStore(
            host="127.0.0.1",
            port=chroma_server,
            model_id="server-contract",
            collection_prefix=f"s{uuid.uuid4().hex[:8]}",
        )


_OPEN_AND_WRITE = """
import sys
from indexing.segment_store import SegmentVectorStore
from indexing.store import ChromaVectorStore, VectorRecord
store = ChromaVectorStore(path=sys.argv[1], model_id="race-test")
print(store.count(repository_id=1))
"""


def test_processes_opening_a_new_directory_at_once_all_succeed(tmp_path):
    """Workers started together each open the embedded store; Chroma's first open migrates its
    schema, and unserialised migrations collided in CI ("table collections already exists")."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    path = str(tmp_path / "fresh")
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AND_WRITE, path],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outcomes = [(p.wait(timeout=120), *p.communicate()) for p in processes]
    failures = [err for code, _, err in outcomes if code != 0]
    assert not failures, failures[0][-2000:]
    assert [out.strip() for _, out, _ in outcomes] == ["0"] * 6
