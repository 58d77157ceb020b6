import importlib.util
from pathlib import Path

import pytest

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


def _refuse(*args, **kwargs):
    raise AssertionError("built or asked by a search after the warm-up")


def test_after_the_warm_up_a_search_builds_nothing_and_asks_the_store_nothing(shop, monkeypatch):
    from indexing import lexical, unit_cache, vector_mirror
    from indexing.store import get_vector_store
    from search.ranking import features
    from search.services import search

    done = warm_up(wait_s=60)
    assert done.complete and done.repositories == 1
    assert done.units == shop.active_run.units_total
    copies = [c for key, c in vector_mirror._copies.items.items() if key[2] == shop.pk]
    assert len(copies) == 2 and all(c.graph is not None for c in copies if c.size)
    # Whatever a first search would load or build, and the store it would otherwise ask.
    monkeypatch.setattr(lexical, "_load", _refuse)
    monkeypatch.setattr(lexical, "_build", _refuse)
    monkeypatch.setattr(vector_mirror.MirroredStore, "_load", _refuse)
    monkeypatch.setattr(vector_mirror, "_build_graph", _refuse)
    store = get_vector_store()
    for method in ("query", "scores", "all_vectors"):
        monkeypatch.setattr(store, method, _refuse)
    monkeypatch.setattr(unit_cache, "CodeUnit", None)  # a unit row read from the database
    monkeypatch.setattr(features, "_words_of", _refuse)  # a unit's code split into words
    response = search(repository=shop, query="retry an http call with backoff", k=5)
    assert response.results and response.ordered_by == "ranker"
    assert not [n for n in response.notices if "failed" in n]
    assert response.results[0].unit.name == "retry_http_call"


def test_without_the_warm_up_the_same_search_would_have_loaded_them(shop, monkeypatch):
    """The test above can fail: a process that did not warm up loads the lexical index and
    starts copying the vectors on its first search."""
    from indexing import lexical, vector_mirror
    from search.services import search

    lexical._indexes._items.clear()
    asked = []
    load = vector_mirror.MirroredStore._load
    monkeypatch.setattr(lexical, "_load", lambda key: asked.append("lexical"))
    monkeypatch.setattr(
        vector_mirror.MirroredStore,
        "_load",
        lambda self, key, copy: asked.append("copy") or load(self, key, copy),
    )
    search(repository=shop, query="retry an http call with backoff", k=5)
    assert "lexical" in asked and "copy" in asked


def test_a_warm_up_that_runs_out_of_time_says_so_and_still_answers(shop, monkeypatch):
    from indexing import vector_mirror

    # No saved graph (phase 2 saved one), and one that never finishes building.
    vector_mirror.drop_saved_graphs(shop.active_run)
    vector_mirror.forget_copies()
    monkeypatch.setattr(vector_mirror, "_build_graph", lambda key, copy: None)
    done = warm_up(wait_s=0.5)
    assert not done.complete and done.repositories == 1


def test_the_wsgi_application_warms_up_before_it_is_served(db, monkeypatch):
    """gunicorn loads the application in the worker before the worker takes requests: the
    module that makes it warms up as it is loaded, not in the background."""
    import search.warmup

    calls = []
    monkeypatch.setattr(search.warmup, "warm_up", lambda **kwargs: calls.append(kwargs))
    path = Path(__file__).resolve().parents[2] / "reporift" / "wsgi.py"
    spec = importlib.util.spec_from_file_location("wsgi_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert calls == [{}]
    assert callable(module.application)


@pytest.mark.parametrize("searched", [True, False])
def test_an_index_run_copies_the_new_generation_before_its_switch_where_it_is_searched(
    shop, searched
):
    from indexing import vector_mirror
    from indexing.lexical import generation_key
    from indexing.selectors import active_generation
    from indexing.services import index_run_execute, index_run_start

    old = generation_key(active_generation(repository=shop))
    if searched:
        assert warm_up(wait_s=60).complete
    (Path(shop.source) / "shop" / "refunds.py").write_text(
        "def refund_order(order):\n    '''Give the money back.'''\n    return order.total\n"
    )
    run = index_run_execute(run=index_run_start(repository=shop, enqueue=False))
    assert run.status == "succeeded" and run.embedder_model == run.phase2_model
    shop.refresh_from_db()
    new = generation_key(active_generation(repository=shop))
    assert new != old
    keys = {key[1] for key in vector_mirror._copies.items if key[2] == shop.pk}
    if not searched:  # a process that only indexes copies nothing
        assert keys == set()
        return
    assert keys == {new}  # the new generation's, ready; the old one's gone
    copies = [c for key, c in vector_mirror._copies.items.items() if key[2] == shop.pk]
    assert all(c.loaded.is_set() and c.graph is not None for c in copies if c.size)
    assert sum(c.size for c in copies) >= 2 * shop.active_run.units_total
    # The rows read before the switch serve the new generation's units that kept them.
    from indexing import unit_cache
    from indexing.models import CodeUnit

    kept = set(CodeUnit.objects.filter(file_version__runs=run).values_list("pk", flat=True))
    cached = {pk for key, pk in unit_cache._rows if key == new}
    assert len(kept) - 1 == len(cached) and cached < kept  # all but refund_order's


@pytest.fixture
def fresh_memo(monkeypatch):
    """The words memo of a process that has met no unit yet."""
    from search.ranking import features
    from search.ranking.word_memo import WordMemo

    def fresh():
        memo = WordMemo(10_000)
        monkeypatch.setattr(features, "MEMO", memo)
        return memo

    return fresh


def test_a_second_process_reads_the_words_the_first_saved(shop, fresh_memo, monkeypatch):
    from indexing.lexical import lexical_index_for_run
    from search.ranking import features
    from search.ranking.word_packs import pack_path
    from search.warmup import _read_units

    pack_path(shop.active_run).unlink()  # as if no background work had saved it
    fresh_memo()
    assert _read_units() == shop.active_run.units_total
    assert pack_path(shop.active_run).exists()
    # A fresh process: nothing computed yet, and computing is not allowed.
    memo = fresh_memo()
    monkeypatch.setattr(features, "_words_of", _refuse)
    assert _read_units() == shop.active_run.units_total
    ids = lexical_index_for_run(shop.active_run).unit_ids.tolist()
    assert all(pk in memo for pk in ids)


def test_the_words_of_every_unit_are_saved_after_indexing_and_read_past_the_rows(
    shop, fresh_memo, monkeypatch
):
    """Indexing's background work saves every unit's words; a process that keeps fewer rows
    than the repository has takes all of them, and a search over units whose rows it let go
    splits no code."""
    from indexing import unit_cache
    from search.ranking import features
    from search.ranking.word_packs import pack_path, read_pack
    from search.services import search
    from search.warmup import _read_units

    units = shop.active_run.units_total
    words, packed = read_pack(shop.active_run)
    assert len(packed) == units and words
    monkeypatch.setattr(unit_cache, "CACHED_UNITS", 2)
    memo = fresh_memo()
    monkeypatch.setattr(features, "_words_of", _refuse)
    assert _read_units() == 2  # rows read
    assert len(memo) == units  # words held
    unit_cache._rows.clear()
    response = search(repository=shop, query="retry an http call with backoff", k=5)
    assert response.results[0].unit.name == "retry_http_call"
    assert pack_path(shop.active_run).exists()


def test_a_warm_up_of_some_repositories_reads_theirs_and_keeps_the_others_words(shop, fresh_memo):
    from search.ranking.word_packs import pack_path

    fresh_memo()
    done = warm_up(wait_s=60, repositories=[shop.pk])
    assert done.repositories == 1 and done.units == shop.active_run.units_total
    assert pack_path(shop.active_run).exists()
    # Another repository warmed alone (the evaluation warms one corpus at a time): nothing of
    # the shop's is read, and its saved words stay for the process that serves it.
    other = warm_up(wait_s=60, repositories=[shop.pk + 1000])
    assert other.repositories == 0 and other.units == 0
    assert pack_path(shop.active_run).exists()


def test_what_the_warm_up_read_is_out_of_the_collectors_reach(shop):
    import gc

    from indexing.lexical import lexical_index_for_run
    from indexing.unit_cache import generation_units

    try:
        warm_up(wait_s=60, repositories=[shop.pk])
        # The rows it read are frozen: the oldest generation's collection never walks them.
        unit_id = int(lexical_index_for_run(shop.active_run).unit_ids[0])
        row = generation_units(shop.active_run, [unit_id])[unit_id]
        assert gc.get_freeze_count() > 0
        assert all(o is not row for o in gc.get_objects(generation=2))
        # A later warm-up thaws first, so what has gone since is collected, then freezes again.
        frozen = gc.get_freeze_count()
        warm_up(wait_s=60, repositories=[shop.pk])
        assert 0 < gc.get_freeze_count() <= frozen * 1.5
    finally:
        gc.unfreeze()
