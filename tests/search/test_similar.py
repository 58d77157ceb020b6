"""Code to code: a snippet or an indexed unit finds the units that do the same thing."""

import pytest

from indexing.models import CodeUnit
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from search.filters import SearchFilters
from search.results import SearchError
from search.similar import (
    CodeQuery,
    candidates,
    code_query,
    order,
    similar_across,
    similar_code,
    unit_for_similar,
)
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db

# retry_http_call with every name changed and its docstring gone, as someone would paste it.
RENAMED_RETRY = """
def call_again(fn, tries=3, pause=0.5):
    for n in range(tries):
        try:
            return fn()
        except ConnectionError:
            time.sleep(pause * 2 ** n)
    raise RuntimeError("gave up")
"""


def qualnames(response):
    return [r.unit.qualname for r in response.results]


def test_a_renamed_copy_finds_the_original_first(shop):
    response = similar_code(repository=shop, query=code_query(code=RENAMED_RETRY), k=5)
    assert qualnames(response)[0] == "retry_http_call"
    first = response.results[0]
    assert response.mode == "similar" and response.ordered_by == "likeness"
    assert "code vector" in first.reason and "same shape" in first.reason
    # Identifiers aside, the copy has the original's syntax tree.
    assert first.comparable == first.score and first.score > response.results[1].score
    assert {"embed", "vector", "bm25", "likeness", "total"} <= set(response.timings_ms)


def test_a_unit_finds_its_twin_and_never_itself(db, write_repo):
    files = {**SAMPLE_FILES, "shop/copy.py": SAMPLE_FILES["shop/text.py"].replace("title", "name")}
    repository = repository_create(name="twins", source=str(write_repo(files)))
    assert (
        index_run_execute(run=index_run_start(repository=repository, enqueue=False)).status
        == "succeeded"
    )
    unit = active_units(repository=repository).get(path="shop/text.py", qualname="slugify_title")
    response = similar_code(repository=repository, query=code_query(unit=unit), k=5)
    assert unit.pk not in [r.unit.pk for r in response.results]
    assert (response.results[0].unit.path, response.results[0].unit.qualname) == (
        "shop/copy.py",
        "slugify_name",
    )
    assert response.query == f"code like slugify_title (shop/text.py:{unit.start_line})"


def test_each_signal_is_a_similarity_and_the_order_follows_the_weights(shop):
    found, _ = candidates(repository=shop, query=CodeQuery(RENAMED_RETRY))
    for candidate in found:
        assert set(candidate.similarities) == {"vector", "words", "shape"}
        assert all(0.0 <= v <= 1.0 + 1e-6 for v in candidate.similarities.values())
        assert set(candidate.found_by) <= {"vector", "bm25"} and candidate.found_by
    by_shape = order(found, {"shape": 1.0})
    assert [c.similarities["shape"] for c, _ in by_shape] == sorted(
        (c.similarities["shape"] for c in found), reverse=True
    )
    assert by_shape[0][0].unit.qualname == "retry_http_call"
    assert by_shape[0][1] == pytest.approx(by_shape[0][0].similarities["shape"])


def test_filters_and_kinds_apply(shop):
    filters = SearchFilters(kinds=(CodeUnit.Kind.METHOD,))
    query = code_query(code=RENAMED_RETRY)
    response = similar_code(repository=shop, query=query, k=10, filters=filters)
    assert response.results and {r.unit.kind for r in response.results} == {"method"}


def test_bad_requests_are_refused_clearly(shop, settings):
    with pytest.raises(SearchError, match="paste the code"):
        code_query(code="   \n")
    limit = settings.REPORIFT["SEARCH"]["SIMILAR"]["MAX_CODE_CHARS"]
    with pytest.raises(SearchError, match="longer than"):
        code_query(code="x = 1\n" * limit)
    with pytest.raises(SearchError, match="k must be"):
        similar_code(repository=shop, query=code_query(code=RENAMED_RETRY), k=0)
    # A fragment that is not valid Python still has words, a vector and a partial shape.
    broken = similar_code(
        repository=shop, query=code_query(code="for x in items:\n  x.strip("), k=3
    )
    assert broken.results


def test_a_unit_of_an_unseen_repository_is_refused_like_a_missing_one(shop, db, write_repo):
    hidden = repository_create(name="hidden", source=str(write_repo(SAMPLE_FILES)), is_public=False)
    index_run_execute(run=index_run_start(repository=hidden, enqueue=False))
    secret = active_units(repository=hidden).first()
    for unit_id in (secret.pk, 10**9):
        with pytest.raises(SearchError, match=f"no indexed unit {unit_id} in the repositories"):
            unit_for_similar(repositories=[shop], unit_id=unit_id)
    assert unit_for_similar(repositories=[shop, hidden], unit_id=secret.pk) == secret


def test_across_repositories_merges_by_score(shop, db, write_repo):
    other = repository_create(name="other", source=str(write_repo(SAMPLE_FILES)))
    index_run_execute(run=index_run_start(repository=other, enqueue=False))
    response = similar_across(repositories=[shop, other], query=code_query(code=RENAMED_RETRY), k=4)
    top_two = [(r.repository, r.unit.qualname) for r in response.results[:2]]
    assert sorted(top_two) == [("other", "retry_http_call"), ("shop", "retry_http_call")]
    scores = [r.comparable for r in response.results]
    assert scores == sorted(scores, reverse=True)


def test_a_store_that_is_down_leaves_words_and_says_so(shop, monkeypatch):
    from indexing.store import VectorStoreUnavailable
    from search import retrieval

    class Down:
        def query(self, *args, **kwargs):
            raise VectorStoreUnavailable("connection refused")

        scores = query

    monkeypatch.setattr(retrieval, "_vector_store_or_placeholder", lambda model_id: Down())
    response = similar_code(repository=shop, query=code_query(code=RENAMED_RETRY), k=3)
    assert response.results[0].unit.qualname == "retry_http_call"
    assert any("code vectors are unavailable (connection refused)" in n for n in response.notices)
