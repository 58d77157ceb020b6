"""Embedding through a cache of vectors keyed by (model, sha256 of the text).

Texts already embedded under the same model (in this repository's earlier runs, in another
repository, in a fork) cost a database read instead of a model run; the rest are embedded and
stored. Identical texts within one call are embedded once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from indexing.embedding import Embedder, ProgressCallback
from indexing.models import CachedVector

_LOOKUP_BATCH = 500


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def embed_cached(
    embedder: Embedder, texts: Sequence[str], *, progress: ProgressCallback | None = None
) -> np.ndarray:
    """Vectors for `texts` in order, as `embedder.embed` would return them. An embedder whose
    lookup costs less than a read from here (`worth_caching = False`: the static tier) skips
    the cache."""
    if not getattr(embedder, "worth_caching", True):
        return embedder.embed(texts, progress=progress)
    out = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    if not texts:
        return out
    keys = [text_key(t) for t in texts]
    known = cached_vectors(embedder.model_id, set(keys), embedder.dimension)
    missing: dict[str, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in known:
            missing.setdefault(key, text)
    if missing:
        done_before = len(texts) - sum(1 for k in keys if k in missing)

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress(done_before + done * (len(texts) - done_before) // total, len(texts))

        vectors = embedder.embed(list(missing.values()), progress=report)
        fresh = dict(zip(missing, vectors, strict=True))
        store_vectors(embedder.model_id, fresh)
        known.update(fresh)
    for row, key in enumerate(keys):
        out[row] = known[key]
    if progress is not None:
        progress(len(texts), len(texts))
    return out


def cached_vectors(model_id: str, keys: set[str], dimension: int) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    ordered = sorted(keys)
    for start in range(0, len(ordered), _LOOKUP_BATCH):
        rows = CachedVector.objects.filter(
            model_id=model_id, text_sha256__in=ordered[start : start + _LOOKUP_BATCH]
        ).values_list("text_sha256", "vector")
        for key, blob in rows:
            vector = np.frombuffer(bytes(blob), dtype="<f4")
            if vector.shape == (dimension,):  # a vector of another shape is ignored, redone
                found[key] = vector
    return found


def store_vectors(model_id: str, vectors: dict[str, np.ndarray]) -> None:
    CachedVector.objects.bulk_create(
        [
            CachedVector(
                model_id=model_id,
                text_sha256=key,
                vector=np.asarray(vector, dtype="<f4").tobytes(),
            )
            for key, vector in vectors.items()
        ],
        batch_size=500,
        ignore_conflicts=True,  # a concurrent run stored the same text first: same vector
    )
