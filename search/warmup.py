"""Load what the first search needs (the embedders of both tiers, the vector store, the learned
ranker) when the server starts, in the background, so that the first user does not wait for it."""

from __future__ import annotations

import contextlib
import logging
import threading

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
    except Exception:  # a broken part is reported by the first search that needs it
        logger.exception("warm-up failed")


def warm_up_in_background() -> None:
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
