"""Questions in other languages: rows resolved against a manifest and an unpacked corpus (a
tiny fake one here), refused when the corpus is not the copy they were written against."""

import json

import pytest

from search.evaluation.corpus_manifest import fingerprint, read_manifest
from search.evaluation.datasets import DatasetError, load_dataset

CLIENT = """/**
 * Take a connection from the pool, waiting at most the timeout.
 */
function acquireConnection(pool, timeout) {
  return pool.acquire(timeout);
}

function releaseConnection(pool, connection) {
  return pool.release(connection);
}
"""
ROWS = [
    {"id": "toyjs-001", "kind": "symbol", "query": "acquireConnection",
     "primary": [{"path": "client.js", "lines": [1, 6], "name": "acquireConnection"}]},
    {"id": "toyjs-002", "kind": "architecture", "query": "how does the pool work",
     "primary": [{"path": "client.js"}],
     "secondary": [{"path": "util/pool.js", "lines": [1, 1]}]},
]  # fmt: skip


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    corpora = tmp_path / "corpora"
    root = corpora / "npm" / "toyjs-1.0.0" / "package" / "lib"
    (root / "util").mkdir(parents=True)
    (root / "client.js").write_text(CLIENT)
    (root / "util" / "pool.js").write_text("module.exports = class Pool {};\n")
    (root / "alias.js").symlink_to("client.js")
    digest, files = fingerprint(root)
    sets = tmp_path / "languages"
    (sets / "dev").mkdir(parents=True)
    entry = {"ecosystem": "npm", "package": "toyjs", "version": "1.0.0", "root": "package/lib",
             "language": "javascript", "sha256": digest, "files": files}  # fmt: skip
    (sets / "corpora.json").write_text(json.dumps({"toyjs": entry}))
    monkeypatch.setenv("REPORIFT_CORPORA", str(corpora))
    return root, sets


def write_rows(sets, rows, **overrides):
    path = sets / "dev" / "toyjs.jsonl"
    defaults = {"package": "toyjs", "version": "1.0.0", "language": "javascript"}
    path.write_text("\n".join(json.dumps(defaults | row | overrides) for row in rows) + "\n")
    return path


def test_fingerprint_counts_files_and_sees_a_changed_byte(corpus):
    root, _ = corpus
    digest, files = fingerprint(root)
    assert files == 2  # the symlink is recorded by its target, not counted as a file
    (root / "util" / "pool.js").write_text("module.exports = class Pool { };\n")
    assert fingerprint(root)[0] != digest


def test_language_rows_load_against_the_manifest_corpus(corpus):
    root, sets = corpus
    write_rows(sets, ROWS)
    data = load_dataset(sets / "dev", "questions", part="all")
    assert data.corpora["toyjs"].source == str(root.resolve())
    assert [q.language for q in data.queries] == ["javascript", "javascript"]
    span = data.queries[0].gold[0]
    assert (span.path, span.lines, span.qualname) == ("client.js", (1, 6), "")
    architecture = data.queries[1].gold
    assert architecture[0].lines is None and architecture[0].primary
    assert architecture[1].relevance == 0.5 and not architecture[1].primary


@pytest.mark.parametrize(
    "change, message",
    [
        ({"version": "0.9.0"}, r"written against toyjs 0\.9\.0 \(javascript\); the manifest"),
        ({"language": "typescript"}, r"the manifest has 1\.0\.0 \(javascript\)"),
        ({"package": "other"}, r"corpus 'other' is not in the manifest"),
        ({"primary": [{"path": "nope.js"}]}, r"nope\.js does not exist in the corpus"),
        ({"primary": [{"path": "client.js", "lines": [1, 99]}]}, r"must be \[start, end\]"),
        ({"primary": [{"path": "client.js", "qualname": "acquire"}]}, r"no qualname"),
    ],
)
def test_bad_language_rows_are_refused(corpus, change, message):
    _, sets = corpus
    write_rows(sets, [ROWS[0]], **change)
    with pytest.raises(DatasetError, match=r"toyjs\.jsonl:1: .*" + message):
        load_dataset(sets / "dev", "questions", part="all")


def test_a_corpus_that_is_not_the_recorded_copy_is_refused(corpus):
    root, sets = corpus
    (root / "client.js").write_text(CLIENT.replace("timeout", "deadline"))
    write_rows(sets, ROWS)
    with pytest.raises(DatasetError, match="differs from the copy the rows were written against"):
        load_dataset(sets / "dev", "questions", part="all")


def test_a_missing_corpus_says_how_to_fetch_it(corpus, tmp_path, monkeypatch):
    _, sets = corpus
    monkeypatch.setenv("REPORIFT_CORPORA", str(tmp_path / "elsewhere"))
    write_rows(sets, ROWS)
    with pytest.raises(DatasetError, match=r"benchmarks\.corpora fetch"):
        load_dataset(sets / "dev", "questions", part="all")


def test_the_manifest_refuses_an_unknown_ecosystem(tmp_path):
    path = tmp_path / "corpora.json"
    entry = {"ecosystem": "cpan", "package": "x", "version": "1", "root": ".", "language": "perl"}
    path.write_text(json.dumps({"x": entry}))
    with pytest.raises(DatasetError, match="ecosystem must be one of"):
        read_manifest(path)


@pytest.mark.django_db
def test_a_report_breaks_its_figures_down_by_language(corpus):
    from search.evaluation.runner import evaluate

    _, sets = corpus
    write_rows(sets, ROWS)
    report = evaluate(dataset=load_dataset(sets / "dev", "questions", part="all"), progress=False)
    assert [e["language"] for e in report["per_query"]] == ["javascript", "javascript"]
    javascript = report["by_language"]["javascript"]
    assert javascript["n_queries"] == 2
    assert set(javascript["by_kind"]) == {"symbol", "architecture"}
    assert 0.0 <= javascript["ndcg@10"]["mean"] <= 1.0
