"""Load what the first search needs (the embedders of both tiers, the vector store, the learned
ranker) when the server starts, in the background, so that the first user does not wait for it."""

from __future__ import annotations

import contextlib
import logging
import threading
import time

logger = logging.getLogger(__name__)


def warm_up() -> None:
    from indexing.embedding import get_embedder
    from indexing.static_tier import get_static_embedder
    from indexing.store import get_vector_store
    from search.ranking.model import RankerUnavailable, get_ranker

    try:
        get_embedder().embed(["warm up"])
        get_static_embedder()  # distilled here on a new install's first start
        get_vector_store()
        with contextlib.suppress(RankerUnavailable):  # off or refused: searches say so
            get_ranker()
        prefetch_vectors()
    except Exception:  # a broken part is reported by the first search that needs it
        logger.exception("warm-up failed")


def prefetch_vectors(*, wait_s: float = 0.0) -> bool:
    """Start copying searchable repositories' vectors into memory (newest first, those that
    fit within the copies' bound together), so that the first searches need not ask the store
    for their candidates' scores; with `wait_s`, wait that long for them. Whether all those
    started are loaded."""
    from indexing.models import Repository
    from indexing.selectors import active_generation
    from indexing.store import FIELDS
    from indexing.vector_mirror import MAX_VECTORS
    from search.retrieval import retriever_store

    loaded = True
    deadline = time.monotonic() + wait_s
    # Copies past the bound would evict each other (the newest, loaded first, before the
    # rest): a repository that does not fit in what is left is skipped, not copied.
    room = MAX_VECTORS
    searchable = Repository.objects.filter(active_run__isnull=False).order_by("-pk")
    for repository in searchable.select_related("active_run"):
        vectors = repository.active_run.units_total * len(FIELDS)
        if vectors > room:
            continue
        room -= vectors
        generation = active_generation(repository=repository)
        store = retriever_store(generation)
        if hasattr(store, "prefetch"):
            left = max(0.0, deadline - time.monotonic())
            loaded &= store.prefetch(repository_id=repository.pk, wait_s=left)
    return loaded


def warm_up_in_background() -> None:
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
