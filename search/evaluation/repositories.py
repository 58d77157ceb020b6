"""A report's figures averaged per repository first, then over repositories.

A set's repositories hold different numbers of questions (a large framework 60, a small library
30); a plain mean over questions lets the repositories with most questions decide. Users'
questions are judged the other way (the mean of per-repository means), and so is the deciding
figure of every question set here: each repository weighs the same. Intervals resample the
questions within each repository (`stats.grouped_bootstrap_ci`). Needs no Django: a peer's
report (benchmarks.semble_questions) is summarised the same way as ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from search.evaluation.metrics import DECIDING_KEY
from search.evaluation.stats import grouped_bootstrap_ci

# The deciding file figure, and the span figure reported beside it.
REPOSITORY_KEYS = (DECIDING_KEY, "ndcg@10")


def corpus_of(entry: dict[str, Any]) -> str:
    """The repository (corpus) of a report's per-query entry. Reports written before entries
    named it are read by the question sets' id rule, `<corpus>-<number>`."""
    return entry.get("corpus") or str(entry.get("id", "")).rsplit("-", 1)[0]


def repository_keys(metrics: dict[str, float]) -> tuple[str, ...]:
    """The per-repository figures a query's metrics allow (older reports lack the file one)."""
    return tuple(key for key in REPOSITORY_KEYS if key in metrics)


def repository_mean(values: Sequence[float], groups: Sequence[str]) -> float:
    """The mean of the groups' means."""
    sums: dict[str, list[float]] = {}
    for value, group in zip(values, groups, strict=True):
        sums.setdefault(group, []).append(value)
    return sum(sum(v) / len(v) for v in sums.values()) / len(sums) if sums else 0.0


def repository_summary(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-repository averages of `REPOSITORY_KEYS`, with intervals, and the plain mean over
    questions beside each (where they differ, the repositories are unevenly sized)."""
    groups = [corpus_of(e) for e in entries]
    out: dict[str, Any] = {"n_queries": len(entries), "n_repositories": len(set(groups))}
    for key in repository_keys(entries[0]["metrics"]) if entries else ():
        values = [e["metrics"][key] for e in entries]
        mean, low, high = grouped_bootstrap_ci(values, groups)
        out[key] = {
            "mean": round(mean, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "query_mean": round(sum(values) / len(values), 4),
        }
    return out


def repository_figures(per_query: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A report's `per_repository` block: overall, per language and per kind (each the mean of
    the means of the repositories that have such questions), and each repository's means."""
    out: dict[str, Any] = {"deciding": DECIDING_KEY, "all": repository_summary(per_query)}
    for field in ("language", "kind"):
        values = sorted({e.get(field) for e in per_query} - {None, ""})
        if values:
            out[f"by_{field}"] = {
                value: repository_summary([e for e in per_query if e.get(field) == value])
                for value in values
            }
    corpora: dict[str, list[dict[str, Any]]] = {}
    for entry in per_query:
        corpora.setdefault(corpus_of(entry), []).append(entry)
    out["by_repository"] = {
        corpus: {"n_queries": len(entries)}
        | {
            key: round(sum(e["metrics"][key] for e in entries) / len(entries), 4)
            for key in repository_keys(entries[0]["metrics"])
        }
        for corpus, entries in sorted(corpora.items())
    }
    return out
