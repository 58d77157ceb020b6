"""Exact search over the trigram index: literals, regular expressions, qualifiers, limits and
catastrophic patterns, on whichever database the suite runs (SQLite by default; PostgreSQL with
`make test`'s second pass, which lists this file)."""

from __future__ import annotations

import re
import time

import pytest

from indexing.models import ExactChunk
from search.answer import answer
from search.exact import exact_search
from search.query_syntax import QuerySyntaxError, parse_query
from search.results import SearchError

pytestmark = pytest.mark.django_db

FILES = {
    "app/config.py": '''
import os

RETRY_KEY = "http.retries"  # the config key


class Settings:
    """Settings read from the environment."""

    def timeout(self):
        raise ValueError("timeout must be > 0 (got \\"%s\\")" % os.environ["T"])

    def with_retries(self, n):
        return self.copy(retries=n)


def fetch_user_async(uid):
    # TODO: cache the user
    return client.with_retries(3).get(f"/users/{uid}")


def fetch_team_async(tid):
    return client.get(f"/teams/{tid}")
''',
    "app/handlers.go": """package app

// Handle answers a request.
func Handle(w Writer, r *Request) error {
	// TODO: check the method
	return fetchUserAsync(r.ID)
}
""",
    "docs/notes.md": """# Notes

The key http.retries sets the retries.
TODO: write the rest
""",
    "tests/test_config.py": """
from app.config import Settings


def test_timeout():
    # TODO: a real test
    assert Settings().with_retries(2)
""",
}


@pytest.fixture
def app(indexed_repo):
    return indexed_repo("app", FILES)


def lines(response):
    return [(h.path, h.line) for h in response.lines.hits]


def grep(repository, query, **kwargs):
    return answer(repository=repository, query=query, **kwargs)


def expected(pattern: str, *, flags=0, only=None):
    """The (path, line) pairs Python's re finds over the fixture, line by line: the reference
    for patterns both dialects read the same."""
    out = []
    for path, text in sorted(FILES.items()):
        if only and not only(path):
            continue
        for number, line in enumerate(
            text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1
        ):
            if re.search(pattern, line, flags):
                out.append((path, number))
    return out


def test_the_index_is_built_in_phase_one_and_holds_every_line(app):
    chunks = ExactChunk.objects.filter(file_version__runs=app.active_run)
    assert {c.file_version.path for c in chunks} == set(FILES)
    config = "".join(c.text for c in chunks if c.file_version.path == "app/config.py")
    assert 'RETRY_KEY = "http.retries"' in config


def test_a_literal_with_punctuation_and_quotes(app):
    response = grep(app, r'"raise ValueError(\"timeout must be > 0 (got \\\""')
    assert response.mode_used == "exact" and response.lines.narrowed_by == "trigram index"
    assert lines(response) == [("app/config.py", 11)]
    hit = response.lines.hits[0]
    assert hit.unit.qualname == "Settings.timeout" and hit.unit.kind == "method"
    start, end = hit.ranges[0]
    assert hit.text[start:end] == 'raise ValueError("timeout must be > 0 (got \\"'
    assert hit.before[-1].strip() == "def timeout(self):"


def test_a_literal_call_finds_every_line_and_no_other(app):
    response = grep(app, '".with_retries("')
    assert lines(response) == expected(r"\.with_retries\(")
    assert len(lines(response)) == 2
    assert response.lines.total == 2 and not response.lines.limit_reached
    assert [r.unit.qualname for r in response.results] == ["fetch_user_async", "test_timeout"]


def test_a_regex_with_classes_and_anchors(app):
    response = grep(app, r"/^def fetch_\w+_async\(\w+\):$/")
    assert lines(response) == expected(r"^def fetch_\w+_async\(\w+\):$")
    assert [h.unit.qualname for h in response.lines.hits] == [
        "fetch_user_async",
        "fetch_team_async",
    ]
    response = grep(app, r"/^\s*(//|#) ?TODO:/")
    assert lines(response) == expected(r"^\s*(//|#) ?TODO:")
    assert len(lines(response)) == 3


def test_a_case_insensitive_regex(app):
    response = grep(app, "/todo: (cache|write)/i")
    assert lines(response) == expected(r"todo: (cache|write)", flags=re.I)
    assert len(lines(response)) == 2


def test_path_and_lang_filters_with_free_words(app):
    response = grep(app, '"TODO" lang:python path:app/ caching users')
    assert lines(response) == [("app/config.py", 18)]
    response = grep(app, '"TODO" -path:tests/ -path:docs/')
    assert {p for p, _ in lines(response)} == {"app/config.py", "app/handlers.go"}
    response = grep(app, '"TODO" lang:go')
    assert lines(response) == [("app/handlers.go", 5)]
    assert response.lines.hits[0].unit.name == "Handle"


def test_free_words_order_the_lines_by_meaning(app):
    by_path = grep(app, '"TODO"')
    assert [p for p, _ in lines(by_path)] == sorted(p for p, _ in lines(by_path))
    by_meaning = grep(app, '"TODO" unit test of the timeout setting')
    assert set(lines(by_meaning)) == set(lines(by_path))
    assert lines(by_meaning)[0] == ("tests/test_config.py", 6)


def test_kind_and_symbol(app):
    response = grep(app, '"with_retries" kind:method')
    assert lines(response) == [("app/config.py", 13)]
    response = grep(app, '"client." symbol:fetch_team_async')
    assert lines(response) == [("app/config.py", 23)]
    response = grep(app, "symbol:Settings.timeout")
    assert lines(response) == [("app/config.py", 10)]
    hit = response.lines.hits[0]
    assert hit.text.strip() == "def timeout(self):"
    assert [hit.text[a:b] for a, b in hit.ranges] == ["timeout"]


def test_a_plain_search_takes_qualifiers(app):
    response = grep(app, "retry the http call lang:go")
    assert response.lines is None and response.results
    assert {r.unit.language for r in response.results} == {"go"}


def test_a_pattern_without_trigrams_is_scanned_and_says_so(app, settings):
    response = grep(app, r"/^\s*}$/")
    assert response.lines.narrowed_by == "bounded scan"
    assert lines(response) == expected(r"^\s*}$")
    assert any("read one by one" in n for n in response.notices)
    settings.REPORIFT = {
        **settings.REPORIFT,
        "SEARCH": {
            **settings.REPORIFT["SEARCH"],
            "EXACT": {**settings.REPORIFT["SEARCH"]["EXACT"], "SCAN_CHARS": 100},
        },
    }
    response = grep(app, r"/^\s*}$/")
    assert not response.lines.scanned_all
    assert any("the rest was not" in n for n in response.notices)


def test_a_catastrophic_pattern_is_bounded(app, indexed_repo):
    text = "a" * 30_000 + "!\n" + ("a" * 40 + "b\n") * 200
    repository = indexed_repo("aaa", {"a.md": text})
    for query in ["/(a+)+$/", "/(a|aa)*c/", "/(x+x+)+y/", "/^(a+)+b$/"]:
        started = time.perf_counter()
        response = grep(repository, query)
        assert time.perf_counter() - started < 5, query
        assert response.lines.total <= 200
    assert grep(repository, "/^(a+)+b$/").lines.total == 200
    assert lines(grep(repository, "/(a|aa)*c/")) == []


def test_limits_are_said_when_reached(app):
    response = grep(app, '"TODO"', limit=2)
    assert len(response.lines.hits) == 2 and response.lines.total == 4
    assert response.lines.limit_reached
    assert any("4 matching lines: the first 2 are shown" in n for n in response.notices)
    assert dict(((p, n) for _, p, n in response.lines.files)) == {
        "app/config.py": 1,
        "app/handlers.go": 1,
        "docs/notes.md": 1,
        "tests/test_config.py": 1,
    }


@pytest.mark.parametrize(
    "query, position, words",
    [
        ('find "unclosed', 5, "never closed"),
        ("x /a(b/", 3, "missing )"),
        ("/ok/ /a\\qb/", 7, "invalid escape"),
        ("path: foo", 0, "needs a value"),
        ("kind:widget foo", 0, "kind must be one of"),
        ("lang:cobol foo", 0, "unknown language"),
        ('""', 0, "empty"),
    ],
)
def test_a_bad_query_says_where(query, position, words):
    with pytest.raises(QuerySyntaxError) as caught:
        parse_query(query)
    assert caught.value.position == position
    assert words in str(caught.value) and f"at character {position + 1}" in str(caught.value)


def test_the_syntax_keeps_ordinary_questions(app):
    parsed = parse_query("how does read/write locking work in /etc/hosts")
    assert not parsed.has_syntax and parsed.words.startswith("how does read/write")
    parsed = parse_query(r'"a \"b\"" /c\/d/i path:x -path:y lang:ts kind:class symbol:Z w')
    assert [p.text for p in parsed.patterns] == ['a "b"', "c/d"]
    assert parsed.patterns[1].ignore_case and parsed.words == "w"
    assert parsed.paths == ("x",) and parsed.not_paths == ("y",)
    assert parsed.languages == ("typescript", "tsx") and parsed.kinds == ("class",)


def test_errors_reach_the_caller(app):
    with pytest.raises(SearchError, match="at character"):
        grep(app, "/(/")
    with pytest.raises(SearchError, match="nothing to look for"):
        grep(app, "lang:go")


def test_a_failed_reindex_leaves_the_previous_generation_serving(app, write_repo, monkeypatch):
    from indexing import pipeline
    from indexing.services import index_run_execute, index_run_start

    before = lines(grep(app, '"TODO"'))
    app.source = str(write_repo({**FILES, "app/new.py": "# TODO: new file\n"}))
    app.save()
    seen = {}

    def publish_fails(*, run):
        # The new file's lines are indexed already; searches still read the old generation.
        seen["chunks"] = ExactChunk.objects.filter(file_version__path="app/new.py").count()
        seen["lines"] = lines(grep(app, '"TODO"'))
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(pipeline, "publish_run", publish_fails)
    monkeypatch.setattr("indexing.services.publish_run", publish_fails, raising=False)
    run = index_run_execute(run=index_run_start(repository=app, enqueue=False))
    assert run.status == "failed"
    assert seen == {"chunks": 1, "lines": before}
    assert not ExactChunk.objects.filter(file_version__path="app/new.py").exists()
    assert lines(grep(app, '"TODO"')) == before
    monkeypatch.undo()
    run = index_run_execute(run=index_run_start(repository=app, enqueue=False))
    assert run.status == "succeeded"
    assert ("app/new.py", 1) in lines(grep(app, '"TODO"'))
    assert len(lines(grep(app, '"TODO"'))) == len(before) + 1


def test_deleting_the_repository_removes_its_lines(app):
    from indexing.services import repository_delete

    assert ExactChunk.objects.exists()
    repository_delete(repository=app)
    assert not ExactChunk.objects.exists()


def test_exact_search_direct(app):
    response = exact_search(repository=app, parsed=parse_query('"http.retries"'))
    assert lines(response) == [("app/config.py", 4), ("docs/notes.md", 3)]


def test_the_index_size_on_disk_is_reported(client, app):
    body = client.get("/api/repos/app/exact-index").json()
    assert body["chunks"] == ExactChunk.objects.count() >= len(FILES)
    assert body["text_chars"] == sum(len(c.text) for c in ExactChunk.objects.all())
    assert 0 < body["bytes_on_disk"] <= body["all_bytes_on_disk"]
    assert client.get("/api/repos/nope/exact-index").status_code == 404
