"""Two evaluation reports compared query by query: per language and per kind where rows have them
(the developer questions), overall only where they have none (CoSQA)."""

import pytest

from benchmarks.questions import compare, deciding_markdown, markdown


def report(values: dict[str, float], kinds: dict[str, str] | None = None, languages=None) -> dict:
    rows = []
    for query_id, value in values.items():
        row = {
            "id": query_id,
            "metrics": dict.fromkeys(("success@1", "success@10", "mrr", "ndcg@10"), value),
        }
        if kinds:
            row["kind"] = kinds[query_id]
        if languages:
            row["language"] = languages[query_id]
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


def test_rows_with_languages_are_compared_per_language_then_per_kind():
    kinds = {"a": "symbol", "b": "behaviour", "c": "symbol"}
    languages = {"a": "go", "b": "go", "c": "rust"}
    bm25 = report({"a": 0.0, "b": 0.0, "c": 0.0}, kinds, languages)
    fast = report({"a": 1.0, "b": 1.0, "c": 0.0}, kinds, languages)
    for row in [*bm25["per_query"], *fast["per_query"]]:
        row["definition_first"] = row["metrics"]["mrr"] == 1.0
    out = compare(bm25, fast)
    assert list(out) == ["all", "go", "rust", "behaviour", "symbol"]
    assert out["go"]["ndcg@10"]["difference"] == 1.0 and out["go"]["n_queries"] == 2
    assert out["rust"]["ndcg@10"]["difference"] == 0.0
    assert "| go | 2 | 0.000 | 1.000 | +1.000" in markdown(out, "bm25", "fast")


def test_rows_without_kinds_are_compared_overall():
    base, new = report({"q1": 0.5, "q2": 0.0}), report({"q1": 0.5, "q2": 1.0})
    out = compare(base, new)
    assert set(out) == {"all"}
    assert out["all"]["ndcg@10"]["base"] == 0.25 and out["all"]["ndcg@10"]["new"] == 0.75


def test_reports_of_other_queries_are_refused():
    with pytest.raises(SystemExit):
        compare(report({"q1": 1.0}), report({"q2": 1.0}))


def test_a_grown_set_is_compared_on_the_queries_both_hold_when_asked():
    before, grown = report({"q1": 0.0, "q2": 0.5}), report({"q1": 1.0, "q2": 0.5, "q3": 0.0})
    with pytest.raises(SystemExit):
        compare(before, grown)
    out = compare(before, grown, shared_only=True)
    assert out["all"]["n_queries"] == 2 and out["all"]["ndcg@10"]["new"] == 0.75
    with pytest.raises(SystemExit):  # nothing in common is still refused
        compare(report({"q1": 1.0}), report({"q2": 1.0}), shared_only=True)


def test_file_figures_are_compared_where_both_reports_have_them():
    base, new = report({"q1": 0.5, "q2": 0.5}), report({"q1": 0.5, "q2": 0.5})
    for row, recall in zip(base["per_query"], (0.5, 0.0), strict=True):
        row["metrics"] |= {"files@10": 1.0, "file_recall@10": recall}
    for row in new["per_query"]:
        row["metrics"] |= {"files@10": 2.0, "file_recall@10": 1.0}
    out = compare(base, new)
    assert out["all"]["file_recall@10"]["difference"] == pytest.approx(0.75)
    assert out["all"]["files@10"]["new"] == 2.0
    assert "| 0.250 → 1.000 | +0.750" in markdown(out, "base", "new")
    # An older report without them: compared on the other figures only.
    out = compare(report({"q1": 0.5, "q2": 0.5}), new)
    assert "file_recall@10" not in out["all"] and "file recall" not in markdown(out, "a", "b")


def test_the_deciding_figure_is_the_mean_of_repository_means_paired():
    values_base = {"big-1": 0.5, "big-2": 0.5, "big-3": 0.5, "big-4": 0.5, "small-1": 1.0}
    values_new = {"big-1": 1.0, "big-2": 1.0, "big-3": 1.0, "big-4": 1.0, "small-1": 0.0}
    base, new = report(values_base), report(values_new)
    for side, values in ((base, values_base), (new, values_new)):
        for row in side["per_query"]:
            row["corpus"] = row["id"].split("-")[0]
            row["metrics"]["first_file_ndcg@10"] = values[row["id"]]
    out = compare(base, new)
    # Per question the new side gains (+0.2); per repository it loses (-0.25): that decides.
    assert out["all"]["first_file_ndcg@10"]["difference"] == pytest.approx(0.2)
    deciding = out["all"]["per_repository"]
    assert deciding["n_repositories"] == 2
    assert deciding["first_file_ndcg@10"]["base"] == 0.75
    assert deciding["first_file_ndcg@10"]["new"] == 0.5
    assert deciding["first_file_ndcg@10"]["difference"] == pytest.approx(-0.25)
    table = deciding_markdown(out, "semble", "phase1")
    assert "| all | 5 | 2 | 0.750 | 0.500 |" in table
    # Reports from before the file figure: the span figure alone, per repository.
    old = compare(report(values_base), report(values_new))
    assert "first_file_ndcg@10" not in old["all"]["per_repository"]
    assert "| all | 5 | 2 | — |" in deciding_markdown(old, "a", "b")
