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
