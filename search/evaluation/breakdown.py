"""A report's figures per language of its questions: each language's reported figures with 95%
intervals, overall and per kind. Needs no Django: a peer's report (benchmarks.semble_questions)
is broken down the same way as ours."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from search.evaluation.metrics import CI_KEYS, kind_summary, reported_keys
from search.evaluation.stats import bootstrap_ci


def group_summary(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The reported figures, with intervals, of a group of per-query entries."""
    out: dict[str, Any] = {"n_queries": len(entries)}
    for key in reported_keys(entries[0]["metrics"]) if entries else CI_KEYS:
        mean, low, high = bootstrap_ci([e["metrics"][key] for e in entries])
        out[key] = {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}
    return out


def by_language(per_query: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per language (entries without one are left out): its figures and its kinds'."""
    languages = sorted({e["language"] for e in per_query if e.get("language")})
    out = {}
    for language in languages:
        entries = [e for e in per_query if e.get("language") == language]
        kinds = sorted({e["kind"] for e in entries if e.get("kind")})
        out[language] = group_summary(entries) | {
            "by_kind": {kind: kind_summary(entries, kind) for kind in kinds}
        }
    return out
