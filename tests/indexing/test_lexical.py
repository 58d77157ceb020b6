import threading
from datetime import UTC, datetime
from types import SimpleNamespace

from indexing.lexical import GenerationCache, generation_key


def run(pk: int, second: int = 0):
    return SimpleNamespace(pk=pk, created_at=datetime(2026, 1, 1, 0, 0, second, tzinfo=UTC))


def test_generation_key_needs_no_database():
    assert generation_key(run(7)) != generation_key(run(7, second=1))  # a reset reused the id
    assert generation_key(run(7)) == generation_key(run(7))


def test_a_slow_build_blocks_only_its_own_generation():
    cache: GenerationCache[str] = GenerationCache()
    started, release = threading.Event(), threading.Event()
    builds: list[str] = []

    def slow(key: str) -> str:
        builds.append(key)
        started.set()
        release.wait(5)
        return "big"

    def waiter() -> None:
        cache.get(run(1), slow)

    first = threading.Thread(target=waiter)
    first.start()
    started.wait(5)
    # While run 1's index is being built, run 2's is served at once.
    other: list[str] = []
    meanwhile = threading.Thread(target=lambda: other.append(cache.get(run(2), lambda k: "small")))
    meanwhile.start()
    meanwhile.join(2)
    assert other == ["small"]
    second = threading.Thread(target=waiter)  # a second request for run 1 waits, never rebuilds
    second.start()
    release.set()
    first.join(5)
    second.join(5)
    assert cache.get(run(1), lambda key: "rebuilt") == "big"
    assert len(builds) == 1


def test_least_recently_used_generations_are_dropped(monkeypatch):
    monkeypatch.setattr(GenerationCache, "held", 0)  # as no warm-up had asked for more
    cache: GenerationCache[int] = GenerationCache(size=2)
    for pk in (1, 2, 3):
        cache.get(run(pk), lambda key, pk=pk: pk)
    assert cache.get(run(1), lambda key: -1) == -1  # evicted, rebuilt
    assert cache.get(run(3), lambda key: -3) == 3


def test_a_server_sizes_every_cache_to_hold_all_its_repositories(monkeypatch):
    monkeypatch.setattr(GenerationCache, "held", 0)
    cache: GenerationCache[int] = GenerationCache(size=2)
    GenerationCache.hold(3)  # a warm-up of a server with three repositories' worth
    for pk in (1, 2, 3):
        cache.get(run(pk), lambda key, pk=pk: pk)
    assert cache.get(run(1), lambda key: -1) == 1  # kept: a search over all three reads none
    GenerationCache.hold(1)  # never lowered below what another warm-up asked
    assert cache.size == 3
    # A cache made after the warm-up (its module imported by a later search) is as large.
    later: GenerationCache[int] = GenerationCache(size=2)
    assert later.size == 3


def test_an_index_says_which_ids_it_holds():
    from indexing.lexical import bm25_index

    index = bm25_index([7, 3, 11], [["retry", "http"], ["parse", "cookie"], ["encode"]])
    assert index.holds({3, 4, 11, 99}) == {3, 11}
    assert index.scores_of(index.scores("retry"), [7, 4]).keys() == {7}


def test_python_tokens_are_pinned():
    # The ranker and the BM25 indexes on disk were built on exactly these tokens.
    from indexing.lexical import tokenize, unit_tokens

    assert tokenize("def parse_config_file(self, HTTPRetry_policy):") == [
        "parse",
        "config",
        "file",
        "http",
        "retry",
        "policy",
    ]
    assert tokenize('"""Return None if the __init__ is done."""') == ["if", "init", "done"]
    assert unit_tokens("pkg/net_utils.py", "Client.get", "Fetch it.", "return self.url") == [
        *["client", "get", "client", "get", "pkg", "net", "utils", "fetch", "url"]
    ]


def test_every_language_spelling_of_a_name_tokenizes_alike():
    from indexing.lexical import tokenize

    words = ["router", "handle", "request"]
    for spelling in (
        "Router.handleRequest",
        "Router::handle_request",
        "Router#handleRequest",
        "$router->handleRequest()",
        "router-handle-request",
        "@router.HandleRequest",
        "%router{handle_request}",
        "Router.handle_request/2",
        "ROUTER_HANDLE_REQUEST",
    ):
        assert tokenize(spelling) == words, spelling
    assert tokenize("getHTTPResponseCode") == ["get", "http", "response", "code"]


def test_a_languages_syntax_words_stay_out_of_its_code_only():
    from indexing.lexical import code_tokens, unit_tokens

    go = "func (r *Router) Handle(w Writer) error {\n\treturn nil\n}"
    assert code_tokens(go, "go") == ["router", "handle", "writer", "error", "nil"]
    assert "func" in code_tokens(go, "python")  # Python's tokens are as they were
    tokens = unit_tokens("pkg/fn_util.rs", "fn_util", "", "pub fn fn_util() {}", "rust")
    assert tokens.count("fn") == 3  # the name's twice and the path's: words a person typed


def test_an_index_saved_with_older_tokens_is_not_loaded(settings, tmp_path):
    from indexing import lexical

    settings.DATA_DIR = tmp_path
    key = generation_key(run(7))
    index = lexical.bm25_index([1, 2], [["retry", "http"], ["parse", "cookie"]])
    lexical._save(key, index)
    assert lexical._load(key) is not None
    older = lexical._directory(key, lexical.TOKENS_VERSION - 1)
    lexical._directory(key).rename(older)
    assert lexical._load(key) is None  # rebuilt from the units, not read with stale words
    lexical.drop_lexical_index(run(7))
    assert not older.exists() and not lexical._directory(key).exists()
