import pytest

from indexing.lexical import tokenize
from search import streams as S
from search.retrieval import Retriever
from search.services import SearchError, SearchFilters, is_test_path, search

pytestmark = pytest.mark.django_db


def top(response):
    return [r.unit.qualname for r in response.results]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("where do we retry failed HTTP calls?", "retry_http_call"),
        ("charge a credit card", "PaymentGateway.charge"),
        ("turn a title into a url slug", "slugify_title"),
        ("split a CSV line into fields", "parse_csv_line"),
    ],
)
def test_fast_mode_ranks_the_obvious_function_first(shop, query, expected):
    response = search(repository=shop, query=query, k=5)
    assert top(response)[0] == expected
    assert response.mode_used == "fast" and response.ordered_by == "ranker"
    assert set(response.timings_ms) >= {"embed", "S1", "S6", "S4", "resolve", "order", "total"}


def test_each_result_knows_its_streams(shop):
    response = search(repository=shop, query="retry http call backoff", k=7)
    first = response.results[0]
    assert first.streams == ["S1", "S4", "S6"] and first.rank == 1
    assert [r.rank for r in response.results] == list(range(1, len(response.results) + 1))


def streams_of(repository, **changes) -> S.StreamContext:
    """The streams' context of a search of `repository`, shallow as the tests ask."""
    context = Retriever(
        repository=repository, generation=repository.active_run, filters=SearchFilters(), k=3
    ).streams
    context.depth = {stream: 3 for stream in ("S1", "S2", "S3", "S4", "S5", "S6", "S7")}
    for name, value in changes.items():
        setattr(context, name, value)
    return context


def test_query_stream_alone(shop):
    from indexing.models import CodeUnit

    for stream, name in ((S.code_stream, "S1"), (S.header_stream, "S6")):
        result = stream(streams_of(shop), "charge a credit card")
        assert result.name == name and not result.error and result.latency_ms > 0
        scores = [score for _, score in result.hits]
        assert scores == sorted(scores, reverse=True) and len(scores) >= 3
        assert CodeUnit.objects.get(pk=result.hits[0][0]).qualname == "PaymentGateway.charge"


def test_lexical_stream_alone(shop):
    from indexing.models import CodeUnit

    result = S.lexical_stream(streams_of(shop), "csv line")
    assert CodeUnit.objects.get(pk=result.hits[0][0]).qualname == "parse_csv_line"
    assert S.lexical_stream(streams_of(shop), "the of and").hits == []  # only stopwords


def test_tokenizer_splits_identifiers():
    assert tokenize("def parseConfigFile(self, raw_http_body): return HTTPRetry") == [
        "parse",
        "config",
        "file",
        "raw",
        "http",
        "body",
        "http",
        "retry",
    ]


def test_generated_code_and_component_streams(shop):
    code = "def make_slug(title):\n    return '-'.join(title.lower().split())"
    s2 = S.generated_code_stream(streams_of(shop), code)
    from indexing.models import CodeUnit

    assert CodeUnit.objects.get(pk=s2.hits[0][0]).qualname == "slugify_title"
    kinds = {CodeUnit.objects.get(pk=u).kind for u, _ in s2.hits}
    assert "class" in kinds  # classes are searched too
    s3 = S.component_functions_stream(
        streams_of(shop, depth={"S3": 1}), [code, "def charge_card(amount): ..."]
    )
    assert {CodeUnit.objects.get(pk=u).qualname for u, _ in s3.hits} == {
        "slugify_title",
        "PaymentGateway.charge",
    }


def test_a_broken_stream_reports_instead_of_raising(shop):
    class BrokenStore:
        def query(self, *args, **kwargs):
            raise ConnectionError("store down")

    result = S.code_stream(streams_of(shop, store=BrokenStore()), "anything")
    assert result.hits == [] and "store down" in result.error


@pytest.mark.parametrize(
    "filters, allowed",
    [
        (SearchFilters(kinds=("class",)), {"PaymentGateway"}),
        (SearchFilters(path="shop/text.py"), {"slugify_title", "parse_csv_line"}),
        (
            SearchFilters(path="*/payments.py", kinds=("method",)),
            {"PaymentGateway.charge", "PaymentGateway._post"},
        ),
    ],
)
def test_filters(shop, filters, allowed):
    response = search(repository=shop, query="slug title", k=10, filters=filters)
    assert set(top(response)) == allowed


def test_exclude_tests(shop):
    with_tests = top(search(repository=shop, query="test slugify title", k=10))
    without = top(
        search(
            repository=shop,
            query="test slugify title",
            k=10,
            filters=SearchFilters(exclude_tests=True),
        )
    )
    assert "test_slugify_title" in with_tests and "test_slugify_title" not in without


@pytest.mark.parametrize(
    "path, expected",
    [
        ("tests/test_x.py", True),
        ("pkg/tests/helpers.py", True),
        ("pkg/test_y.py", True),
        ("pkg/y_test.py", True),
        ("conftest.py", True),
        ("pkg/testimony.py", False),
        ("pkg/contest.py", False),
    ],
)
def test_is_test_path(path, expected):
    assert is_test_path(path) is expected


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"query": "  "}, "empty"),
        ({"query": "x" * 32_001}, "longer than 32,000 characters"),
        ({"query": "x", "k": 0}, "k must"),
        ({"query": "x", "mode": "turbo"}, "mode must"),
    ],
)
def test_bad_requests(shop, kwargs, message):
    with pytest.raises(SearchError, match=message):
        search(repository=shop, **kwargs)


def test_unindexed_repository(db, write_repo):
    from indexing.services import repository_create

    repository = repository_create(name="empty", source=str(write_repo({"a.py": ""})))
    with pytest.raises(SearchError, match="no finished index"):
        search(repository=repository, query="anything")


def test_without_the_ranker_streams_are_fused_and_the_response_says_so(shop, settings):
    settings.REPORIFT = {
        **settings.REPORIFT,
        "SEARCH": {**settings.REPORIFT["SEARCH"], "RANKER": ""},
    }
    response = search(repository=shop, query="charge a credit card", k=3)
    assert response.ordered_by == "fusion"
    assert top(response)[0] == "PaymentGateway.charge"
    assert any("learned ranker is turned off" in n for n in response.notices)


def test_an_altered_ranker_is_refused(shop, settings, tmp_path):
    from search.ranking.model import DEFAULT_MODEL, manifest_path

    model = tmp_path / "ranker.txt"
    model.write_text(DEFAULT_MODEL.read_text().replace("shrinkage=", "shrinkage=9", 1))
    manifest_path(model).write_text(manifest_path(DEFAULT_MODEL).read_text())
    settings.REPORIFT = {
        **settings.REPORIFT,
        "SEARCH": {**settings.REPORIFT["SEARCH"], "RANKER": str(model)},
    }
    response = search(repository=shop, query="charge a credit card", k=3)
    assert response.ordered_by == "fusion"
    assert any("not the expected model" in n for n in response.notices)


def test_stages_restrict_what_runs(shop):
    plain = search(repository=shop, query="charge a credit card", k=3, stages=("S1",))
    assert {s for r in plain.results for s in r.streams} == {"S1"}
    assert plain.ordered_by == "fusion" and "S6" not in plain.timings_ms


MODULE_CODE = {
    "net/config.py": '''"""Network settings."""
DEFAULT_TIMEOUT = 30
RETRY_STATUSES = frozenset({502, 503, 504})


def timeout_for(host):
    """Seconds to wait for a host."""
    return DEFAULT_TIMEOUT
''',
}


def test_module_level_code_is_searchable_and_filterable(db, write_repo):
    from indexing.services import index_run_execute, index_run_start, repository_create

    repository = repository_create(name="net", source=str(write_repo(MODULE_CODE)))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    repository.refresh_from_db()
    first = search(repository=repository, query="RETRY_STATUSES", k=5).results[0]
    assert (first.unit.kind, first.unit.qualname) == ("module", "config")  # the opening lines
    assert first.unit.defines == ["DEFAULT_TIMEOUT", "RETRY_STATUSES"]
    assert first.reason.startswith("defines 'RETRY_STATUSES'") and "S7" in first.streams
    # A sentence that names code gathers that code's definition too.
    mentioned = search(repository=repository, query="what is in RETRY_STATUSES?", k=5)
    assert "S7" in next(r for r in mentioned.results if r.unit.kind == "module").streams
    only_modules = search(
        repository=repository,
        query="which statuses are retried",
        k=5,
        filters=SearchFilters(kinds=("module",)),
    )
    assert {r.unit.kind for r in only_modules.results} == {"module"}
