"""Two evaluation reports compared query by query: per kind where rows have kinds (the developer
questions), overall only where they have none (CoSQA)."""

import pytest

from benchmarks.questions import compare


def report(values: dict[str, float], kinds: dict[str, str] | None = None) -> dict:
    rows = []
    for query_id, value in values.items():
        row = {
            "id": query_id,
            "metrics": dict.fromkeys(("success@1", "success@10", "mrr", "ndcg@10"), value),
        }
        if kinds:
            row["kind"] = kinds[query_id]
        rows.append(row)
    return {"per_query": rows}


def test_rows_with_kinds_are_compared_per_kind_and_overall():
    kinds = {"a": "symbol", "b": "behaviour", "c": "behaviour"}
    base = report({"a": 0.0, "b": 1.0, "c": 0.0}, kinds)
    for row in base["per_query"]:
        row["definition_first"] = False
    new = report({"a": 1.0, "b": 1.0, "c": 1.0}, kinds)
    for row in new["per_query"]:
        row["definition_first"] = row["id"] == "a"
    out = compare(base, new)
    assert set(out) == {"all", "behaviour", "symbol"}
    assert out["all"]["mrr"]["difference"] == pytest.approx(2 / 3, abs=1e-4)
    assert out["behaviour"]["n_queries"] == 2
    assert out["symbol"]["definition_first"]["new"] == 1.0


def test_rows_without_kinds_are_compared_overall():
    base, new = report({"q1": 0.5, "q2": 0.0}), report({"q1": 0.5, "q2": 1.0})
    out = compare(base, new)
    assert set(out) == {"all"}
    assert out["all"]["ndcg@10"]["base"] == 0.25 and out["all"]["ndcg@10"]["new"] == 0.75


def test_reports_of_other_queries_are_refused():
    with pytest.raises(SystemExit):
        compare(report({"q1": 1.0}), report({"q2": 1.0}))
