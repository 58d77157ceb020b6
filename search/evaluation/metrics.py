"""Retrieval metrics as pure functions of one query's ranked relevance list.

`relevances` holds the graded relevance of each returned item, best-ranked first (0 for a miss);
`n_relevant` is how many relevant items exist for the query (needed by Recall, MAP and the ideal
DCG). Binary labels are relevances of 0 or 1. Averages over queries are plain means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

# Every report's figures, and those reported with a 95% interval and compared pairwise.
METRIC_KEYS = ("success@1", "success@5", "success@10", "mrr", "ndcg@10", "map@10", "recall@10")
CI_KEYS = ("success@1", "success@10", "mrr", "ndcg@10")
# Where a question's answer is a set of files to read: how many distinct files holding a target
# the first ten show, and the share of the primary targets' files among them. Reported (with
# intervals, per kind, paired) wherever a report's per-query metrics hold them.
FILE_KEYS = ("files@10", "file_recall@10", "file_ndcg@10", "first_file_ndcg@10")
# The figure that decides between two configurations of the question sets: files, as a user's
# answer is judged (`first_file_ndcg`), averaged per repository and then over repositories
# (search.evaluation.repositories). The span figure (ndcg@10) is reported beside it.
DECIDING_KEY = "first_file_ndcg@10"


def success_at(relevances: Sequence[float], k: int) -> float:
    return 1.0 if any(r > 0 for r in relevances[:k]) else 0.0


def reciprocal_rank(relevances: Sequence[float], k: int | None = None) -> float:
    for rank, r in enumerate(relevances[:k] if k else relevances, start=1):
        if r > 0:
            return 1.0 / rank
    return 0.0


def dcg_at(relevances: Sequence[float], k: int) -> float:
    return sum(r / math.log2(i + 1) for i, r in enumerate(relevances[:k], start=1))


def ndcg_at(
    relevances: Sequence[float], k: int, ideal_relevances: Sequence[float] | None = None
) -> float:
    """DCG@k / IDCG@k. `ideal_relevances` are all the query's relevance grades (any order);
    by default the relevant items found are the ideal, which is only right when all were found."""
    ideal = sorted(ideal_relevances if ideal_relevances is not None else relevances, reverse=True)
    best = dcg_at(ideal, k)
    return dcg_at(relevances, k) / best if best > 0 else 0.0


def average_precision_at(relevances: Sequence[float], k: int, n_relevant: int) -> float:
    if n_relevant <= 0:
        return 0.0
    hits, total = 0, 0.0
    for rank, r in enumerate(relevances[:k], start=1):
        if r > 0:
            hits += 1
            total += hits / rank
    return total / min(n_relevant, k)


def recall_at(relevances: Sequence[float], k: int, n_relevant: int) -> float:
    if n_relevant <= 0:
        return 0.0
    return sum(1 for r in relevances[:k] if r > 0) / n_relevant


def file_metrics(
    result_paths: Sequence[str], gold_files: Sequence[tuple[str, bool]], k: int = 10
) -> dict[str, float]:
    """`result_paths`: the files of the ranked results, best first; `gold_files`: each target's
    (file, primary). `files@10` counts the distinct files of the first ten that hold any target,
    `file_recall@10` is the share of the primary targets' distinct files among them.
    `file_ndcg@10` ranks files, not results: the first ten distinct files in result order, a
    file worth 1 when it holds a primary target and 0.5 a secondary one only (how a reader who
    opens files, and a benchmark that judges files, sees a list)."""
    shown = set(result_paths[:k])
    relevant = {path for path, _ in gold_files}
    primary = {path for path, is_primary in gold_files if is_primary}
    gain = {path: 0.5 for path in relevant} | {path: 1.0 for path in primary}
    files = list(dict.fromkeys(result_paths))[:k]
    dcg = sum(gain.get(path, 0.0) / math.log2(rank + 2) for rank, path in enumerate(files))
    ideal = sorted(gain.values(), reverse=True)[:k]
    idcg = sum(value / math.log2(rank + 2) for rank, value in enumerate(ideal))
    return {
        "files@10": float(len(shown & relevant)),
        "file_recall@10": len(shown & primary) / len(primary) if primary else 0.0,
        "file_ndcg@10": dcg / idcg if idcg else 0.0,
    }


def first_file_ndcg(
    result_paths: Sequence[str], gold_files: Sequence[tuple[str, bool]], k: int = 10
) -> float:
    """NDCG@k of the first k results judged by their files: a result gains the first time a
    target's file appears (1 for a file holding a primary target, 0.5 for one holding only
    secondary ones) and nothing after, so each target file counts once, at the rank of the
    first result in it. Unlike `file_ndcg@10` the ranks are the results', not the distinct
    files': a list that shows one file five times pushes the next file to rank 6."""
    gain = {path: 0.5 for path, _ in gold_files} | {
        path: 1.0 for path, primary in gold_files if primary
    }
    seen: set[str] = set()
    relevances = []
    for path in result_paths[:k]:
        relevances.append(0.0 if path in seen else gain.get(path, 0.0))
        seen.add(path)
    return ndcg_at(relevances, k, list(gain.values()))


def reported_keys(metrics: dict[str, float]) -> tuple[str, ...]:
    """The keys reported with intervals for a query's metrics: CI_KEYS, and FILE_KEYS where
    the report computed them (older reports and sets without files have none)."""
    return (*CI_KEYS, *(key for key in FILE_KEYS if key in metrics))


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100), as numpy's default."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def query_metrics(
    relevances: Sequence[float],
    gold_relevances: Sequence[float],
    k: int = 10,
    *,
    primary: Sequence[bool] | None = None,
) -> dict[str, float]:
    """Every reported metric for one query. `gold_relevances`: the grades of all its gold items.
    `primary`, where targets are primary or secondary, says which results cover a primary
    one: Success@k and MRR count those only (a secondary target is fair to show, not the
    answer)."""
    n_relevant = sum(1 for g in gold_relevances if g > 0)
    answers = relevances if primary is None else [float(p) for p in primary]
    return {
        "success@1": success_at(answers, 1),
        "success@5": success_at(answers, 5),
        "success@10": success_at(answers, 10),
        "mrr": reciprocal_rank(answers),
        "ndcg@10": ndcg_at(relevances, 10, gold_relevances),
        "map@10": average_precision_at(relevances, 10, n_relevant),
        "recall@10": recall_at(relevances, 10, n_relevant),
        f"success@{k}": success_at(answers, k),
    }


def mean_metrics(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    if not per_query:
        return {}
    keys = per_query[0].keys()
    return {key: sum(m[key] for m in per_query) / len(per_query) for key in keys}


def report_figures(
    metrics: Sequence[dict[str, float]], latencies: Sequence[float], *, k: int
) -> dict[str, Any]:
    """A report's summary: each metric's mean, the 95% intervals of CI_KEYS, latency
    percentiles. Shared by every report (ours and a peer's), so they read alike."""
    from search.evaluation.stats import bootstrap_ci

    summary = mean_metrics(metrics)
    keys = reported_keys(metrics[0]) if metrics else CI_KEYS
    return {
        **{key: round(summary.get(key, 0.0), 4) for key in (*METRIC_KEYS, f"success@{k}")},
        **{key: round(summary[key], 4) for key in keys if key not in CI_KEYS},
        "ci95": {
            key: [round(x, 4) for x in bootstrap_ci([m[key] for m in metrics])[1:]] for key in keys
        },
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 2),
            "p95": round(percentile(latencies, 95), 2),
            "p99": round(percentile(latencies, 99), 2),
            "mean": round(sum(latencies) / max(len(latencies), 1), 2),
        },
    }


def kind_summary(per_query: Sequence[dict[str, Any]], kind: str) -> dict[str, Any]:
    """The reported figures (`reported_keys`), with intervals, of one kind of question in a
    report's per-query entries; for symbol rows also how often a definition of the name came
    first."""
    from search.evaluation.stats import bootstrap_ci

    entries = [e for e in per_query if e.get("kind") == kind]
    out: dict[str, Any] = {"n_queries": len(entries)}
    for key in reported_keys(entries[0]["metrics"]) if entries else CI_KEYS:
        mean, low, high = bootstrap_ci([e["metrics"][key] for e in entries])
        out[key] = {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}
    if kind == "symbol":
        out["definition_first"] = round(
            sum(e["definition_first"] for e in entries) / max(len(entries), 1), 4
        )
    return out
