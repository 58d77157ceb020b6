"""Vector stores: where unit vectors live and are searched.

SQL holds the canonical units; a store only maps vector ids (the string form of CodeUnit primary
keys) to vectors plus the few metadata fields that queries filter on. Vectors of a generation that
is not active yet may already be in the store: callers resolve ids against the active generation,
which is what makes the switch from one generation to the next atomic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from indexing.registry import build_backend, once


@dataclass(frozen=True)
class VectorRecord:
    vector_id: str
    repository_id: int
    kind: str
    path: str


@dataclass(frozen=True)
class VectorHit:
    vector_id: str
    score: float  # cosine similarity, higher is better


@runtime_checkable
class VectorStore(Protocol):
    def upsert(self, records: Sequence[VectorRecord], vectors: np.ndarray) -> None: ...

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
    ) -> list[VectorHit]: ...

    def delete(self, vector_ids: Sequence[str]) -> None: ...

    def delete_repository(self, repository_id: int) -> None: ...

    def count(self, *, repository_id: int) -> int: ...


class VectorStoreUnavailable(RuntimeError):
    """The store cannot be reached (a Chroma server down, a corrupt data dir)."""


class ChromaVectorStore:
    """Chroma: embedded `PersistentClient` in the data dir, or a Chroma server when `host` is set.

    One collection per embedding model, so that changing the model never mixes dimensions.
    Chroma's own embedding function is never used (it downloads a model at first use).
    """

    _BATCH = 2000  # below Chroma's maximum batch size on every backend

    def __init__(
        self,
        *,
        path: str | None = None,
        host: str | None = None,
        port: int = 8000,
        collection_prefix: str = "reporift",
        model_id: str | None = None,
    ) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        try:
            if host:
                self._client = chromadb.HttpClient(host=host, port=port, settings=chroma_settings)
            else:
                self._client = chromadb.PersistentClient(path=path, settings=chroma_settings)
        except Exception as exc:  # chromadb raises bare Exceptions for connection errors
            raise VectorStoreUnavailable(f"cannot open Chroma ({host or path}): {exc}") from exc
        if model_id is None:
            from indexing.embedding import get_embedder

            model_id = get_embedder().model_id
        safe_model = "".join(c if c.isalnum() else "-" for c in model_id.lower())
        self.collection_name = f"{collection_prefix}-{safe_model}"[:63]
        try:
            self._collection = self._client.get_or_create_collection(
                self.collection_name, embedding_function=None, metadata={"hnsw:space": "cosine"}
            )
        except Exception as exc:
            raise VectorStoreUnavailable(
                f"cannot open collection {self.collection_name}: {exc}"
            ) from exc

    def upsert(self, records: Sequence[VectorRecord], vectors: np.ndarray) -> None:
        if len(records) != len(vectors):
            raise ValueError(f"{len(records)} records but {len(vectors)} vectors")
        for start in range(0, len(records), self._BATCH):
            chunk = records[start : start + self._BATCH]
            self._collection.upsert(
                ids=[r.vector_id for r in chunk],
                embeddings=np.asarray(vectors[start : start + self._BATCH], dtype=np.float32),
                metadatas=[
                    {"repository_id": r.repository_id, "kind": r.kind, "path": r.path}
                    for r in chunk
                ],
            )

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
    ) -> list[VectorHit]:
        where: dict[str, Any] = {"repository_id": repository_id}
        if kinds:
            where = {"$and": [where, {"kind": {"$in": list(kinds)}}]}
        try:
            result = self._collection.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                n_results=max(1, n),
                where=where,
                include=["distances"],
            )
        except Exception as exc:
            raise VectorStoreUnavailable(f"Chroma query failed: {exc}") from exc
        ids = result["ids"][0]
        distances = result["distances"][0]
        return [VectorHit(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]

    def delete(self, vector_ids: Sequence[str]) -> None:
        ids = list(vector_ids)
        for start in range(0, len(ids), self._BATCH):
            self._collection.delete(ids=ids[start : start + self._BATCH])

    def delete_repository(self, repository_id: int) -> None:
        self._collection.delete(where={"repository_id": repository_id})

    def count(self, *, repository_id: int) -> int:
        got = self._collection.get(where={"repository_id": repository_id}, include=[])
        return len(got["ids"])


@once
def get_vector_store() -> VectorStore:
    from django.conf import settings

    return build_backend(settings.REPORIFT["VECTOR_STORE"])
