"""Per-language figures of a report: each language's means and kinds, entries without a
language left out."""

from search.evaluation.breakdown import by_language


def entry(language, kind, ndcg):
    metrics = {"success@1": ndcg, "success@10": ndcg, "mrr": ndcg, "ndcg@10": ndcg}
    first = {"definition_first": ndcg == 1.0} if kind == "symbol" else {}
    return {"kind": kind, "metrics": metrics} | first | ({"language": language} if language else {})


def test_each_language_has_its_figures_and_kinds():
    per_query = [
        entry("go", "symbol", 1.0),
        entry("go", "behaviour", 0.0),
        entry("rust", "symbol", 0.5),
        entry("", "symbol", 1.0),
    ]
    out = by_language(per_query)
    assert list(out) == ["go", "rust"]
    assert out["go"]["n_queries"] == 2 and out["go"]["ndcg@10"]["mean"] == 0.5
    assert out["go"]["by_kind"]["symbol"]["ndcg@10"]["mean"] == 1.0
    assert out["go"]["by_kind"]["symbol"]["definition_first"] == 1.0
    assert out["rust"]["by_kind"]["symbol"]["n_queries"] == 1
    assert by_language([entry("", "symbol", 1.0)]) == {}
