"""Contract tests, one class per seam: a backend's test class inherits the contract and provides
the fixture (`embedder_backend`, `vector_store_backend`). Every backend must pass all of it."""

from __future__ import annotations

import numpy as np
import pytest

from indexing.embedding import Embedder
from indexing.store import VectorRecord, VectorStore


class EmbedderContract:
    @pytest.fixture
    def embedder_backend(self) -> Embedder:
        raise NotImplementedError

    def test_satisfies_protocol(self, embedder_backend):
        assert isinstance(embedder_backend, Embedder)
        assert embedder_backend.model_id
        assert embedder_backend.dimension > 0

    def test_shape_dtype_and_unit_length(self, embedder_backend):
        vectors = embedder_backend.embed(["def add(a, b): return a + b", "", "x" * 20_000])
        assert vectors.shape == (3, embedder_backend.dimension)
        assert vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)

    def test_empty_input(self, embedder_backend):
        assert embedder_backend.embed([]).shape == (0, embedder_backend.dimension)

    def test_order_is_kept_and_progress_reported(self, embedder_backend):
        texts = [f"function number {i} computes {w}" for i, w in enumerate("abcdefghij" * 3)]
        calls: list[tuple[int, int]] = []
        together = embedder_backend.embed(texts, progress=lambda d, t: calls.append((d, t)))
        alone = np.stack([embedder_backend.embed([t])[0] for t in texts[:3]])
        assert np.allclose(together[:3], alone, atol=1e-3)
        assert calls[-1] == (len(texts), len(texts))


class VectorStoreContract:
    @pytest.fixture
    def vector_store_backend(self) -> VectorStore:
        raise NotImplementedError

    @staticmethod
    def _unit(i: int, dim: int = 8) -> np.ndarray:
        v = np.zeros(dim, dtype=np.float32)
        v[i % dim] = 1.0
        v[(i + 1) % dim] = 0.1
        return v / np.linalg.norm(v)

    def _fill(self, store, repository_id=1, n=6):
        records = [
            VectorRecord(
                f"{repository_id}-{i}", repository_id, "class" if i == 0 else "function", f"m{i}.py"
            )
            for i in range(n)
        ]
        store.upsert(records, np.stack([self._unit(i) for i in range(n)]))
        return records

    def test_satisfies_protocol(self, vector_store_backend):
        assert isinstance(vector_store_backend, VectorStore)

    def test_query_ranks_by_cosine_and_filters_repository(self, vector_store_backend):
        self._fill(vector_store_backend, repository_id=1)
        self._fill(vector_store_backend, repository_id=2)
        hits = vector_store_backend.query(self._unit(3), repository_id=1, n=3)
        assert next(h.vector_id for h in hits) == "1-3"
        assert all(h.vector_id.startswith("1-") for h in hits)
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert hits[0].score >= hits[1].score >= hits[2].score

    def test_kind_filter(self, vector_store_backend):
        self._fill(vector_store_backend)
        classes = vector_store_backend.query(self._unit(3), repository_id=1, n=5, kinds=["class"])
        assert [h.vector_id for h in classes] == ["1-0"]
        functions = vector_store_backend.query(
            self._unit(0), repository_id=1, n=10, kinds=["function", "method"]
        )
        assert "1-0" not in {h.vector_id for h in functions}

    def test_upsert_replaces_and_delete_removes(self, vector_store_backend):
        self._fill(vector_store_backend)
        vector_store_backend.upsert(
            [VectorRecord("1-1", 1, "function", "m1.py")], np.stack([self._unit(5)])
        )
        hits = vector_store_backend.query(self._unit(5), repository_id=1, n=2)
        assert {h.vector_id for h in hits} == {"1-1", "1-5"}
        vector_store_backend.delete(["1-5", "does-not-exist"])
        assert vector_store_backend.count(repository_id=1) == 5

    def test_delete_repository(self, vector_store_backend):
        self._fill(vector_store_backend, repository_id=1)
        self._fill(vector_store_backend, repository_id=2)
        vector_store_backend.delete_repository(1)
        assert vector_store_backend.count(repository_id=1) == 0
        assert vector_store_backend.count(repository_id=2) == 6
        assert vector_store_backend.query(self._unit(1), repository_id=1, n=3) == []

    def test_mismatched_lengths_refused(self, vector_store_backend):
        with pytest.raises(ValueError):
            vector_store_backend.upsert(
                [VectorRecord("x", 1, "function", "a.py")], np.zeros((2, 8))
            )
