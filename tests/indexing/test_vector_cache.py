"""The vector cache: identical texts are embedded once, across calls and repositories, and the
cached vector is the one the model would give."""

import numpy as np
import pytest

from indexing.embedding import get_embedder
from indexing.models import CachedVector
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.vector_cache import embed_cached
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self):
        self.inner = get_embedder()
        self.model_id = self.inner.model_id
        self.dimension = self.inner.dimension
        self.texts: list[str] = []

    def embed(self, texts, progress=None):
        self.texts += list(texts)
        return self.inner.embed(texts, progress=progress)


def test_each_distinct_text_is_embedded_once():
    embedder = CountingEmbedder()
    texts = [
        "def add(a, b): return a + b",
        "def sub(a, b): return a - b",
        "def add(a, b): return a + b",
    ]
    first = embed_cached(embedder, texts)
    assert embedder.texts == texts[:2]  # the duplicate within one call too
    again = embed_cached(embedder, [texts[1], "class Cart: pass"])
    assert embedder.texts == [*texts[:2], "class Cart: pass"]
    np.testing.assert_allclose(first[2], first[0])
    np.testing.assert_allclose(again[0], first[1], atol=1e-6)
    np.testing.assert_allclose(first, embedder.inner.embed(texts), atol=1e-5)


def test_the_same_source_under_another_name_embeds_nothing(write_repo):
    root = write_repo(SAMPLE_FILES)
    first = repository_create(name="shop", source=str(root))
    index_run_execute(run=index_run_start(repository=first, enqueue=False))
    cached = CachedVector.objects.count()
    assert cached > 0
    fork = repository_create(name="shop-fork", source=str(root))
    run = index_run_execute(run=index_run_start(repository=fork, enqueue=False))
    assert run.status == "succeeded" and run.units_total > 0
    assert CachedVector.objects.count() == cached
