"""A report's figures averaged per repository, then over repositories."""

import pytest

from search.evaluation.repositories import corpus_of, repository_figures, repository_summary


def entry(corpus, language, kind, file_ndcg, span_ndcg, query_id=""):
    return {
        "id": query_id or f"{corpus}-000",
        "corpus": corpus,
        "language": language,
        "kind": kind,
        "metrics": {"first_file_ndcg@10": file_ndcg, "ndcg@10": span_ndcg},
    }


def test_each_repository_weighs_the_same_however_many_questions_it_has():
    entries = [entry("big", "go", "behaviour", 1.0, 0.0)] * 4 + [
        entry("small", "go", "symbol", 0.0, 1.0)
    ]
    out = repository_summary(entries)
    assert out["n_repositories"] == 2 and out["n_queries"] == 5
    assert out["first_file_ndcg@10"]["mean"] == 0.5
    assert out["first_file_ndcg@10"]["query_mean"] == 0.8
    assert out["ndcg@10"]["mean"] == 0.5 and out["ndcg@10"]["query_mean"] == 0.2


def test_figures_by_language_kind_and_repository():
    entries = [
        entry("fzf", "go", "behaviour", 1.0, 0.5),
        entry("fzf", "go", "symbol", 0.5, 0.5),
        entry("cli", "go", "behaviour", 0.0, 0.0),
        entry("just", "rust", "behaviour", 0.25, 1.0),
    ]
    out = repository_figures(entries)
    assert out["deciding"] == "first_file_ndcg@10"
    assert out["all"]["first_file_ndcg@10"]["mean"] == pytest.approx(
        (0.75 + 0.0 + 0.25) / 3, abs=1e-4
    )
    assert out["by_language"]["go"]["first_file_ndcg@10"]["mean"] == pytest.approx(0.375)
    # Behaviour questions: the three repositories that have them, each its own mean.
    assert out["by_kind"]["behaviour"]["n_repositories"] == 3
    assert out["by_kind"]["behaviour"]["first_file_ndcg@10"]["mean"] == pytest.approx(
        1.25 / 3, abs=1e-4
    )
    assert out["by_repository"]["fzf"] == {
        "n_queries": 2,
        "first_file_ndcg@10": 0.75,
        "ndcg@10": 0.5,
    }


def test_older_reports_are_read_by_the_id_rule_and_without_the_file_figure():
    old = {"id": "urfave-cli-017", "metrics": {"ndcg@10": 1.0}}
    assert corpus_of(old) == "urfave-cli"
    out = repository_summary([old])
    assert "first_file_ndcg@10" not in out and out["ndcg@10"]["mean"] == 1.0
