"""Confidence intervals for evaluation figures: percentile bootstrap over queries.

A mean over a few hundred queries moves by several points when other queries are drawn, so
every reported figure carries a 95% interval, and two configurations are compared on the same
queries (paired): the interval of the mean per-query difference says whether a gain is real.
Resampling uses a fixed seed, so a report is reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RESAMPLES = 2000
SEED = 20261122


def _resampled_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(values)
    means = np.empty(resamples)
    for start in range(0, resamples, 250):  # bounded memory for large query sets
        stop = min(start + 250, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[idx].mean(axis=1)
    return means


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95
) -> tuple[float, float, float]:
    """(mean, low, high) of the mean of `values`."""
    array = np.asarray(values, dtype=float)
    if len(array) == 0:
        return 0.0, 0.0, 0.0
    means = _resampled_means(array, resamples, seed)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(array.mean()), float(low), float(high)


def grouped_bootstrap_ci(
    values: Sequence[float],
    groups: Sequence[str],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """(mean, low, high) of the mean of the groups' means (each repository weighs the same,
    however many questions it has). Queries are resampled within their group, so every
    resample keeps every group and its size: the interval is that of the questions drawn for
    these repositories, the figure the per-repository average reports."""
    array = np.asarray(values, dtype=float)
    labels = list(groups)
    if len(labels) != len(array):
        raise ValueError(f"{len(array)} values but {len(labels)} group labels")
    if len(array) == 0:
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    members: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        members.setdefault(label, []).append(index)
    sums = np.zeros(resamples)
    for indices in members.values():
        group = array[indices]
        picks = rng.integers(0, len(group), size=(resamples, len(group)))
        sums += group[picks].mean(axis=1)
    means = sums / len(members)
    mean = float(np.mean([array[indices].mean() for indices in members.values()]))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return mean, float(low), float(high)


def paired_difference(
    candidate: Sequence[float],
    baseline: Sequence[float],
    *,
    groups: Sequence[str] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = 0.95,
) -> dict[str, float]:
    """Mean of candidate - baseline over the same queries, its interval, and how many queries
    each side wins. With `groups` (each query's repository) the mean is the mean of the
    repositories' mean differences, its interval by `grouped_bootstrap_ci`."""
    a = np.asarray(candidate, dtype=float)
    b = np.asarray(baseline, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired comparison needs the same queries: {a.shape} vs {b.shape}")
    if groups is None:
        mean, low, high = bootstrap_ci(a - b, resamples=resamples, seed=seed, level=level)
    else:
        mean, low, high = grouped_bootstrap_ci(
            a - b, groups, resamples=resamples, seed=seed, level=level
        )
    return {
        "difference": mean,
        "low": low,
        "high": high,
        "wins": int((a > b).sum()),
        "losses": int((a < b).sum()),
        "significant": bool(low > 0 or high < 0),
    }
