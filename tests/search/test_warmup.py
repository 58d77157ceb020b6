from indexing.embedding import get_embedder
from search.warmup import warm_up


def test_warm_up_loads_the_embedder_and_store(db):
    get_embedder.cache_clear()
    warm_up()
    assert get_embedder.is_built()
