"""Intervals of a mean over repositories: questions resampled within their repository."""

import pytest

from search.evaluation.stats import bootstrap_ci, grouped_bootstrap_ci, paired_difference


def test_the_mean_of_repository_means_weighs_each_repository_the_same():
    values = [1.0, 1.0, 1.0, 1.0, 0.0]
    groups = ["big"] * 4 + ["small"]
    mean, low, high = grouped_bootstrap_ci(values, groups)
    assert mean == pytest.approx(0.5)
    # Every resample keeps both repositories: with no spread inside them, no spread at all.
    assert (low, high) == (pytest.approx(0.5), pytest.approx(0.5))
    assert bootstrap_ci(values)[0] == pytest.approx(0.8)


def test_the_interval_comes_from_the_questions_within_repositories():
    values = [0.0, 1.0] * 20 + [0.5] * 10
    groups = ["a"] * 40 + ["b"] * 10
    mean, low, high = grouped_bootstrap_ci(values, groups)
    assert mean == pytest.approx(0.5)
    assert low < 0.5 < high and high - low < 0.3
    assert grouped_bootstrap_ci([], []) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        grouped_bootstrap_ci([1.0], ["a", "b"])


def test_a_paired_difference_per_repository_can_differ_in_sign_from_per_query():
    # Four questions of one repository gain 0.5 each; the other repository's one loses 1.
    new = [1.0, 1.0, 1.0, 1.0, 0.0]
    base = [0.5, 0.5, 0.5, 0.5, 1.0]
    groups = ["big"] * 4 + ["small"]
    assert paired_difference(new, base)["difference"] == pytest.approx(0.2)
    grouped = paired_difference(new, base, groups=groups)
    assert grouped["difference"] == pytest.approx(-0.25)
    assert (grouped["wins"], grouped["losses"]) == (4, 1)
