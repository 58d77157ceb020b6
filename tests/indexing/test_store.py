import uuid

import pytest

from indexing.store import ChromaVectorStore
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


def test_backends_are_built_once_under_concurrency():
    import threading
    import time

    from indexing.registry import once

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
