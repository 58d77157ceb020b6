import json

from benchmarks.language_train import build_corpus, definitions
from search.evaluation.corpus_manifest import CorpusEntry

GO = """package retry

// Backoff waits longer after every failed attempt before trying the call again.
type Backoff struct {
	Base int
}

// Delay returns how long to sleep before the given attempt is made.
// It doubles with every attempt.
func (b *Backoff) Delay(attempt int) int {
	return b.Base << attempt
}

// Do calls the function until it succeeds or the attempts run out.
func Do(f func() error, attempts int) error {
	return f()
}
"""

GO_TEST = """package retry

// Delay returns how long to sleep before the given attempt is made.
func TestDelay(t *testing.T) {}
"""


def entry(tmp_path):
    root = tmp_path / "corpora" / "debian" / "golang-retry-dev-1.0" / "src"
    root.mkdir(parents=True)
    (root / "retry.go").write_text(GO)
    (root / "retry_test.go").write_text(GO_TEST)
    manifest = {"ecosystem": "debian", "package": "golang-retry-dev", "version": "1.0"}
    return CorpusEntry(name="retry", root="src", language="go", **manifest)


def test_rows_from_doc_comments_and_names_with_the_docs_blanked(tmp_path):
    corpus = entry(tmp_path)
    rows = build_corpus(corpus, tmp_path / "corpora", tmp_path / "out", per_kind=8)
    json.dumps(rows)
    behaviour = {r["query"]: r["gold"] for r in rows if r["kind"] == "behaviour"}
    assert behaviour == {
        "Backoff waits longer after every failed attempt before trying the call again": [
            {"path": "retry.go", "qualname": "Backoff"}
        ],
        "Do calls the function until it succeeds or the attempts run out": [
            {"path": "retry.go", "qualname": "Do"}
        ],
    }  # Delay's sentence opens a test's comment too: ambiguous, never asked
    symbols = {r["query"] for r in rows if r["kind"] == "symbol"}
    assert symbols <= {"Backoff", "Backoff.Delay", "TestDelay"} and "Backoff.Delay" in symbols
    assert all(r["repo"] == "retry" and r["language"] == "go" for r in rows)
    copy = (tmp_path / "out" / "retry" / "retry.go").read_text()
    assert "waits longer" not in copy and "Do calls" not in copy
    assert "// Delay returns how long" in copy  # only asked definitions lose their doc
    assert copy.count("\n") == GO.count("\n")  # lines kept: the rest of the file is unchanged
    # The copy still parses into the same definitions, now without the asked docs.
    found = {d.qualname: d.sentence for d in definitions(tmp_path / "out" / "retry", "go")}
    assert found["Backoff"] == "" and found["Do"] == "" and found["Backoff.Delay"]
    # The source itself is untouched.
    assert (
        tmp_path / "corpora" / "debian" / "golang-retry-dev-1.0" / "src" / "retry.go"
    ).read_text() == GO
