from indexing.embedding import get_embedder
from search.warmup import warm_up


def test_warm_up_loads_the_embedder_and_store(db):
    get_embedder.cache_clear()
    warm_up()
    assert get_embedder.is_built()


def test_warm_up_copies_each_repositorys_vectors_for_its_first_searches(shop):
    from indexing import vector_mirror
    from search.warmup import prefetch_vectors

    assert prefetch_vectors(wait_s=30)
    copies = [c for key, c in vector_mirror._copies.items.items() if key[2] == shop.pk]
    assert len(copies) == 2  # the code and the header field
    assert all(c.size == shop.active_run.units_total for c in copies)


def test_warm_up_copies_only_what_fits_within_the_bound(shop, monkeypatch):
    from indexing import vector_mirror
    from search.warmup import prefetch_vectors

    vector_mirror._copies.clear()
    monkeypatch.setattr(vector_mirror, "MAX_VECTORS", shop.active_run.units_total)
    assert prefetch_vectors(wait_s=30)  # two fields would not fit: nothing is started
    assert not vector_mirror._copies.items
