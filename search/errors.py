"""User-facing wording for failures of the parts search depends on."""

from indexing.embedding import EmbedderUnavailable
from indexing.store import VectorStoreUnavailable


def search_unavailable_message(exc: Exception) -> str:
    if isinstance(exc, VectorStoreUnavailable):
        return f"The vector store is unavailable, so search cannot run right now ({exc})."
    if isinstance(exc, EmbedderUnavailable):
        return f"The embedding model is unavailable ({exc})."
    return f"Search failed unexpectedly: {type(exc).__name__}. The error was logged."
