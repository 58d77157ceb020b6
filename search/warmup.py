"""Load what the first search needs (the embedder, the vector store) when the server starts,
in the background, so that the first user does not wait a second for it."""

from __future__ import annotations

import logging
import threading

logger = logging.getLogger(__name__)


def warm_up() -> None:
    from indexing.embedding import get_embedder
    from indexing.store import get_vector_store

    try:
        get_embedder().embed(["warm up"])
        get_vector_store()
    except Exception:  # a broken part is reported by the first search that needs it
        logger.exception("warm-up failed")


def warm_up_in_background() -> None:
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
