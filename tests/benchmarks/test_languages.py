"""Fast mode, BM25 and semble paired per language: groups, figures and differences."""

import pytest

from benchmarks.languages import combine, markdown


def report(scores):
    per_query = []
    for n, (language, kind, value) in enumerate(scores):
        metrics = {"success@1": value, "success@10": value, "mrr": value, "ndcg@10": value}
        per_query.append(
            {"id": f"q{n}", "language": language, "kind": kind, "query": f"q{n}", "gold": [],
             "metrics": metrics, "results": [{"path": "a.go", "qualname": "Run",
                                              "covers_primary": value == 1.0}]}
        )  # fmt: skip
    return {"per_query": per_query, "latency_ms": {"p50": 1.0}}


def test_fast_is_paired_with_each_peer_per_language_and_kind():
    rows = [("go", "symbol", 1.0), ("go", "behaviour", 1.0), ("rust", "symbol", 0.0)]
    peer = [("go", "symbol", 0.0), ("go", "behaviour", 0.0), ("rust", "symbol", 0.0)]
    combined = combine({"fast": report(rows), "bm25": report(peer), "semble": report(rows)})
    assert combined["groups"] == {"all": 3, "go": 2, "rust": 1, "behaviour": 1, "symbol": 2}
    assert combined["figures"]["fast"]["go"]["ndcg@10"]["mean"] == 1.0
    assert combined["paired"]["fast_vs_bm25"]["go"]["ndcg@10"]["difference"] == 1.0
    assert combined["paired"]["fast_vs_semble"]["all"]["ndcg@10"]["difference"] == 0.0
    assert combined["per_query"][0]["fast"]["top"] == ["*a.go:Run"]
    assert "| go | 2 | 1.000 | 0.000 | 1.000 |" in markdown(combined)


def test_reports_of_other_queries_are_refused():
    one = report([("go", "symbol", 1.0)])
    two = report([("go", "symbol", 1.0), ("go", "symbol", 0.0)])
    with pytest.raises(SystemExit, match="other queries"):
        combine({"fast": one, "bm25": two, "semble": one})
