import math

import pytest

from search.evaluation.metrics import (
    average_precision_at,
    dcg_at,
    file_metrics,
    first_file_ndcg,
    kind_summary,
    mean_metrics,
    ndcg_at,
    percentile,
    query_metrics,
    recall_at,
    reciprocal_rank,
    report_figures,
    success_at,
)


def test_single_relevant_at_rank_3():
    rel = [0, 0, 1, 0, 0]
    assert success_at(rel, 1) == 0 and success_at(rel, 3) == 1
    assert reciprocal_rank(rel) == pytest.approx(1 / 3)
    # DCG = 1/log2(4) = 0.5; IDCG = 1 -> NDCG 0.5
    assert ndcg_at(rel, 10, [1]) == pytest.approx(0.5)
    assert average_precision_at(rel, 10, 1) == pytest.approx(1 / 3)
    assert recall_at(rel, 10, 1) == 1.0


def test_two_relevant_one_found():
    rel = [1, 0, 0]
    # IDCG with two relevant = 1 + 1/log2(3)
    assert ndcg_at(rel, 10, [1, 1]) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert recall_at(rel, 10, 2) == 0.5
    assert average_precision_at(rel, 10, 2) == pytest.approx(0.5)


def test_two_relevant_both_found():
    rel = [0, 1, 1]
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at(rel, 10, [1, 1]) == pytest.approx(dcg / idcg)
    assert average_precision_at(rel, 10, 2) == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_graded_relevance():
    rel = [1, 3, 0, 2]
    dcg = 1 + 3 / math.log2(3) + 2 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert dcg_at(rel, 10) == pytest.approx(dcg)
    assert ndcg_at(rel, 10, [3, 2, 1]) == pytest.approx(dcg / idcg)


def test_nothing_retrieved():
    assert query_metrics([], [1], k=10) == {
        "success@1": 0.0,
        "success@5": 0.0,
        "success@10": 0.0,
        "mrr": 0.0,
        "ndcg@10": 0.0,
        "map@10": 0.0,
        "recall@10": 0.0,
    }
    assert query_metrics([0, 0], [], k=10)["ndcg@10"] == 0.0


def test_ties_in_scores_do_not_matter_only_order_does():
    # Two results with the same score: the harness keeps the order search returned (it never
    # re-sorts by score), so the gold's place decides the metric.
    from types import SimpleNamespace

    from search.evaluation.datasets import GoldUnit
    from search.evaluation.runner import judge

    def result(qualname):
        unit = SimpleNamespace(path="a.py", qualname=qualname, kind="function")
        return SimpleNamespace(unit=unit, score=0.5, streams=["S1"])

    gold = [GoldUnit("a.py", "gold")]
    _, miss_first, _ = judge([result("other"), result("gold")], gold, snippets=False)
    _, gold_first, _ = judge([result("gold"), result("other")], gold, snippets=False)
    assert reciprocal_rank(miss_first) == 0.5 and reciprocal_rank(gold_first) == 1.0


def test_tied_grades_in_the_ideal_ranking():
    # Two gold items of grade 2 and one of grade 1: any order of the two 2s is ideal.
    assert ndcg_at([2, 2, 1], 3, [1, 2, 2]) == pytest.approx(1.0)
    assert ndcg_at([2, 1, 2], 3, [2, 2, 1]) < 1.0


def test_cutoffs():
    rel = [0] * 10 + [1]
    assert success_at(rel, 10) == 0 and reciprocal_rank(rel) == pytest.approx(1 / 11)
    assert ndcg_at(rel, 10, [1]) == 0.0
    assert query_metrics(rel, [1], k=20)["success@20"] == 1.0


def test_mean_and_percentile():
    assert mean_metrics([{"mrr": 1.0}, {"mrr": 0.0}, {"mrr": 0.5}]) == {"mrr": 0.5}
    assert mean_metrics([]) == {}
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 95) == 10
    assert percentile([], 50) == 0.0
    assert percentile(list(range(101)), 95) == 95


def test_file_metrics_count_distinct_files_and_the_primary_files_found():
    gold = [("a.py", True), ("a.py", True), ("b.py", True), ("c.py", False)]
    shown = ["a.py", "a.py", "c.py", "x.py"] + ["y.py"] * 6 + ["b.py"]  # b.py is 11th
    figures = file_metrics(shown, gold)
    # a.py and c.py hold targets; of the primary files (a.py, b.py) only a.py is in the ten.
    assert {k: figures[k] for k in ("files@10", "file_recall@10")} == {
        "files@10": 2.0,
        "file_recall@10": 0.5,
    }
    assert file_metrics(shown, gold, k=11)["file_recall@10"] == 1.0
    empty = file_metrics([], [("a.py", False)])
    assert empty == {"files@10": 0.0, "file_recall@10": 0.0, "file_ndcg@10": 0.0}


def test_file_ndcg_ranks_distinct_files_primary_worth_twice_secondary():
    gold = [("a.py", True), ("b.py", True), ("c.py", False)]
    # Files in order a, x, c, b (a.py twice counts once): gains 1, 0, 0.5, 1.
    figures = file_metrics(["a.py", "a.py", "x.py", "c.py", "b.py"], gold)
    dcg = 1 + 0.5 / math.log2(4) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 0.5 / math.log2(4)
    assert figures["file_ndcg@10"] == pytest.approx(dcg / idcg)
    assert file_metrics(["a.py", "b.py", "c.py"], gold)["file_ndcg@10"] == pytest.approx(1.0)


def test_reports_give_file_figures_intervals_only_where_computed():
    with_files = [
        {
            "success@1": 1.0,
            "success@10": 1.0,
            "mrr": 1.0,
            "ndcg@10": 1.0,
            "files@10": 2.0,
            "file_recall@10": 0.5,
        }
    ] * 3
    figures = report_figures(with_files, [1.0, 2.0, 3.0], k=10)
    assert figures["file_recall@10"] == 0.5 and "files@10" in figures["ci95"]
    without = [{k: v for k, v in m.items() if "file" not in k} for m in with_files]
    assert "files@10" not in report_figures(without, [1.0], k=10)["ci95"]
    entries = [{"kind": "architecture", "metrics": m} for m in with_files]
    assert kind_summary(entries, "architecture")["files@10"]["mean"] == 2.0


def test_first_file_ndcg_counts_a_file_once_at_its_first_result():
    gold = [("a.py", True), ("b.py", True)]
    # a.py twice: the second gains nothing and b.py is the third result, not the second file.
    figure = first_file_ndcg(["a.py", "a.py", "b.py"], gold)
    assert figure == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    assert file_metrics(["a.py", "a.py", "b.py"], gold)["file_ndcg@10"] == pytest.approx(1.0)
    assert first_file_ndcg(["a.py", "b.py", "a.py"], gold) == pytest.approx(1.0)
    # Only the first ten results count, however many files they name.
    assert first_file_ndcg(["a.py"] * 10 + ["b.py"], gold) == pytest.approx(
        1 / (1 + 1 / math.log2(3))
    )


def test_first_file_ndcg_gives_secondary_files_half_and_a_file_its_best_target():
    gold = [("a.py", True), ("c.py", False)]
    idcg = 1 + 0.5 / math.log2(3)
    assert first_file_ndcg(["c.py", "a.py"], gold) == pytest.approx((0.5 + 1 / math.log2(3)) / idcg)
    assert first_file_ndcg(["c.py", "x.py"], gold) == pytest.approx(0.5 / idcg)
    # A file holding a primary and a secondary target is one primary file.
    assert first_file_ndcg(["a.py"], [("a.py", False), ("a.py", True)]) == pytest.approx(1.0)
    assert first_file_ndcg([], gold) == 0.0 and first_file_ndcg(["x.py"], []) == 0.0
