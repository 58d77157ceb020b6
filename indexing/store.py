"""Vector stores: where unit vectors live and are searched.

SQL holds the canonical units; a store only maps vector ids (the string form of CodeUnit primary
keys) to vectors plus the few metadata fields that queries filter on. Each unit has one vector
per field (`code`: its source; `header`: its name, place, context and signature; see
`indexing.unit_text`). Vectors of a generation that is not active yet may already be in the
store: callers resolve ids against the active generation, which is what makes the switch from
one generation to the next atomic.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from reporift.backends import build_backend, once
from reporift.locks import file_lock

FIELDS = ("code", "header")


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
    def upsert(
        self, records: Sequence[VectorRecord], vectors: np.ndarray, *, field: str = "code"
    ) -> None: ...

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
        field: str = "code",
    ) -> list[VectorHit]: ...

    def scores(
        self,
        vector: np.ndarray,
        vector_ids: Sequence[str],
        *,
        repository_id: int,
        field: str = "code",
    ) -> dict[str, float]:
        """The cosine of `vector` with each of the given vectors (ids the store lacks are left
        out): what the learned ranker needs for candidates that another stream found."""
        ...

    def all_vectors(
        self, *, repository_id: int, field: str = "code"
    ) -> tuple[list[str], np.ndarray]:
        """Every vector of a repository's field with its id (rows L2-normalised): what a
        process copies into memory to score candidates without asking the store
        (`indexing.vector_mirror`)."""
        ...

    def delete(self, vector_ids: Sequence[str], *, repository_id: int) -> None: ...

    def delete_repository(self, repository_id: int) -> None: ...

    def count(self, *, repository_id: int, field: str = "code") -> int: ...


class VectorStoreUnavailable(RuntimeError):
    """The store cannot be reached (a Chroma server down, a corrupt data dir)."""


def rows_by_repository(
    records: Sequence[VectorRecord], vectors: np.ndarray
) -> dict[int, list[int]]:
    """An upsert's rows, grouped by repository (each store keeps repositories apart)."""
    if len(records) != len(vectors):
        raise ValueError(f"{len(records)} records but {len(vectors)} vectors")
    by_repository: dict[int, list[int]] = {}
    for row, record in enumerate(records):
        by_repository.setdefault(record.repository_id, []).append(row)
    return by_repository


def check_field(field: str) -> None:
    if field not in FIELDS:
        raise ValueError(f"unknown vector field {field!r}; choose from {', '.join(FIELDS)}")


def _open_persistent(chromadb: Any, path: str | None, chroma_settings: Any) -> Any:
    """An embedded Chroma client, opened under a lock beside its files: two workers opening a
    new data dir at once both run Chroma's schema migrations and one fails ("table collections
    already exists"). Chroma caches a system per path, a broken one included, so a failed open
    drops this path's entry and the next attempt starts clean (`clear_system_cache()` would drop
    every other path's too)."""
    from chromadb.api.client import SharedSystemClient

    lock = Path(path or ".") / ".reporift-open.lock"
    with file_lock(lock):
        try:
            return chromadb.PersistentClient(path=path, settings=chroma_settings)
        except Exception:
            SharedSystemClient._identifier_to_system.pop(str(path), None)
            raise


class ChromaVectorStore:
    """Chroma: embedded `PersistentClient` in the data dir, or a Chroma server when `host` is set.

    One collection per (embedding model, repository, field). Per model, so that changing the
    model never mixes dimensions; per repository, because a metadata filter over one shared
    collection made every search pay for every other repository (132 ms at 21k units, most of
    it the filter); per field, so each field is its own nearest-neighbour index. Chroma's own
    embedding function is never used (it downloads a model at first use).
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
                self._client = _open_persistent(chromadb, path, chroma_settings)
        except Exception as exc:  # chromadb raises bare Exceptions for connection errors
            raise VectorStoreUnavailable(f"cannot open Chroma ({host or path}): {exc}") from exc
        if model_id is None:
            from indexing.embedding import get_embedder

            model_id = get_embedder().model_id
        safe_model = "".join(c if c.isalnum() else "-" for c in model_id.lower()).strip("-")
        if len(safe_model) > 40:  # Chroma limits names; a hash keeps long ids distinct
            safe_model = safe_model[:31] + "-" + hashlib.sha1(model_id.encode()).hexdigest()[:8]
        self.prefix = f"{collection_prefix}-{safe_model}"
        self._collections: dict[str, Any] = {}
        self._lock = threading.Lock()

    def collection_name(self, repository_id: int, field: str) -> str:
        check_field(field)
        return f"{self.prefix}-r{repository_id}-{field}"

    def _collection(self, repository_id: int, field: str, *, create: bool):
        """The collection, or None when it does not exist and `create` is off (a repository
        with nothing indexed yet answers every query with nothing)."""
        name = self.collection_name(repository_id, field)
        with self._lock:
            if name in self._collections:
                return self._collections[name]
            try:
                if create:
                    collection = self._client.get_or_create_collection(
                        name, embedding_function=None, metadata={"hnsw:space": "cosine"}
                    )
                else:
                    collection = self._client.get_collection(name, embedding_function=None)
            except Exception as exc:
                if not create and _is_not_found(exc):
                    return None
                raise VectorStoreUnavailable(f"cannot open collection {name}: {exc}") from exc
            self._collections[name] = collection
            return collection

    def upsert(
        self, records: Sequence[VectorRecord], vectors: np.ndarray, *, field: str = "code"
    ) -> None:
        for repository_id, rows in rows_by_repository(records, vectors).items():
            collection = self._collection(repository_id, field, create=True)
            for start in range(0, len(rows), self._BATCH):
                chunk = rows[start : start + self._BATCH]
                collection.upsert(
                    ids=[records[r].vector_id for r in chunk],
                    embeddings=np.asarray(vectors[chunk], dtype=np.float32),
                    metadatas=[{"kind": records[r].kind, "path": records[r].path} for r in chunk],
                )

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
        field: str = "code",
    ) -> list[VectorHit]:
        collection = self._collection(repository_id, field, create=False)
        if collection is None:
            return []
        where = {"kind": {"$in": list(kinds)}} if kinds else None
        try:
            result = collection.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                n_results=max(1, n),
                where=where,
                include=["distances"],
            )
        except Exception as exc:
            self._forget(repository_id, field)  # deleted or recreated by another process
            raise VectorStoreUnavailable(f"Chroma query failed: {exc}") from exc
        return _hits(result)

    def _forget(self, repository_id: int, field: str) -> None:
        with self._lock:
            self._collections.pop(self.collection_name(repository_id, field), None)

    def scores(
        self,
        vector: np.ndarray,
        vector_ids: Sequence[str],
        *,
        repository_id: int,
        field: str = "code",
    ) -> dict[str, float]:
        ids = list(dict.fromkeys(vector_ids))
        collection = self._collection(repository_id, field, create=False)
        if collection is None or not ids:
            return {}
        # A query restricted to the ids answers with their distances alone, computed inside
        # Chroma: about a quarter of the time of `get` with the embeddings, which copies every
        # vector out to Python (the learned ranker asks this twice per search). Chroma refuses
        # such a query when an id is not in the collection; `get` then finds those it has.
        try:
            result = collection.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                ids=ids,
                n_results=len(ids),
                include=["distances"],
            )
            return {hit.vector_id: hit.score for hit in _hits(result)}
        except Exception as exc:
            if "error finding id" not in str(exc).lower():
                self._forget(repository_id, field)
                raise VectorStoreUnavailable(f"Chroma query failed: {exc}") from exc
        try:
            result = collection.get(ids=ids, include=["embeddings"])
        except Exception as exc:
            self._forget(repository_id, field)
            raise VectorStoreUnavailable(f"Chroma get failed: {exc}") from exc
        if not result["ids"]:
            return {}
        matrix = np.asarray(result["embeddings"], dtype=np.float32)
        values = matrix @ np.asarray(vector, dtype=np.float32)
        return {i: float(v) for i, v in zip(result["ids"], values, strict=True)}

    def all_vectors(
        self, *, repository_id: int, field: str = "code"
    ) -> tuple[list[str], np.ndarray]:
        collection = self._collection(repository_id, field, create=False)
        ids: list[str] = []
        parts: list[np.ndarray] = []
        if collection is not None:
            try:
                while True:  # in pages: one `get` of 24k vectors held three copies at once
                    page = collection.get(
                        include=["embeddings"], limit=self._BATCH, offset=len(ids)
                    )
                    if not page["ids"]:
                        break
                    ids.extend(page["ids"])
                    parts.append(np.asarray(page["embeddings"], dtype=np.float32))
            except Exception as exc:
                self._forget(repository_id, field)
                raise VectorStoreUnavailable(f"Chroma get failed: {exc}") from exc
        return ids, (np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32))

    def delete(self, vector_ids: Sequence[str], *, repository_id: int) -> None:
        ids = list(vector_ids)
        for field in FIELDS:
            collection = self._collection(repository_id, field, create=False)
            if collection is None:
                continue
            for start in range(0, len(ids), self._BATCH):
                collection.delete(ids=ids[start : start + self._BATCH])

    def delete_repository(self, repository_id: int) -> None:
        for field in FIELDS:
            name = self.collection_name(repository_id, field)
            with self._lock:
                self._collections.pop(name, None)
                try:
                    self._client.delete_collection(name)
                except Exception as exc:
                    if not _is_not_found(exc):
                        raise VectorStoreUnavailable(f"cannot delete {name}: {exc}") from exc

    def count(self, *, repository_id: int, field: str = "code") -> int:
        collection = self._collection(repository_id, field, create=False)
        if collection is None:
            return 0
        try:
            return collection.count()
        except Exception as exc:
            self._forget(repository_id, field)  # deleted by another store or process
            if _is_not_found(exc):
                return 0
            raise VectorStoreUnavailable(f"Chroma count failed: {exc}") from exc


def _hits(result: dict) -> list[VectorHit]:
    ids = result["ids"][0]
    distances = result["distances"][0]
    return [VectorHit(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]


def _is_not_found(exc: Exception) -> bool:
    from chromadb.errors import NotFoundError

    return isinstance(exc, NotFoundError) or "does not exist" in str(exc)


@once
def _serving_store() -> VectorStore:
    from django.conf import settings

    return build_backend(settings.REPORIFT["VECTOR_STORE"])


def _serving_model_id() -> str:
    from indexing.embedding import get_embedder

    return get_embedder().model_id


_by_model: dict[str, VectorStore] = {}
_by_model_lock = threading.Lock()


def get_vector_store(model_id: str | None = None) -> VectorStore:
    """The store of `model_id`'s vectors, built once per process; by default the serving
    transformer's."""
    if model_id is None or model_id == _serving_model_id():
        return _serving_store()
    with _by_model_lock:
        if model_id not in _by_model:
            from django.conf import settings

            from indexing.static_tier import STATIC_PREFIX

            config = settings.REPORIFT["VECTOR_STORE"]
            if model_id.startswith(STATIC_PREFIX) and settings.REPORIFT["STATIC_VECTOR_STORE"]:
                config = settings.REPORIFT["STATIC_VECTOR_STORE"]
            try:
                _by_model[model_id] = build_backend(
                    {**config, "OPTIONS": {**config.get("OPTIONS", {}), "model_id": model_id}}
                )
            except TypeError as exc:  # its vectors would overwrite the serving model's
                raise VectorStoreUnavailable(
                    f"{config['CLASS']} keeps one model's vectors (it takes no model_id): "
                    "set REPORIFT_STATIC_TIER=off for one-phase indexing"
                ) from exc
        return _by_model[model_id]


def _clear_stores() -> None:
    _serving_store.cache_clear()
    with _by_model_lock:
        _by_model.clear()


get_vector_store.cache_clear = _clear_stores  # type: ignore[attr-defined]


def drop_model_vectors(*, repository_id: int, model_id: str) -> None:
    """Delete a repository's vectors made by an embedding model that no longer serves it."""
    get_vector_store(model_id).delete_repository(repository_id)
