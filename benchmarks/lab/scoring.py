"""Exact scoring for the lab: per-unit scores -> the rank of the first hit -> metrics."""

from __future__ import annotations

import math

import numpy as np

from benchmarks.lab.corpora import LabCorpus, LabQuery, relevance
from search.evaluation.stats import bootstrap_ci, paired_difference

MISS = math.inf


def first_hit_rank(corpus: LabCorpus, scores: np.ndarray, hits: np.ndarray) -> float:
    """1-based rank of the best-placed hit under `scores` (-inf = not retrieved). Snippet corpora
    rank snippets by their best unit, as the evaluation harness does."""
    if corpus.kind == "snippets":
        snippet = corpus.arrays().snippet
        best: dict[str, float] = {}
        for name, score in zip(snippet, scores, strict=True):
            if score > best.get(name, -math.inf):
                best[name] = score
        gold = {name for name, hit in zip(snippet, hits, strict=True) if hit}
        gold_score = max((best.get(g, -math.inf) for g in gold), default=-math.inf)
        if gold_score == -math.inf:
            return MISS
        return 1 + sum(1 for s in best.values() if s > gold_score)
    if not hits.any():
        return MISS
    gold_score = scores[hits].max()
    if gold_score == -math.inf:
        return MISS
    return float(1 + (scores > gold_score).sum())


def query_hits(lab_set) -> list[np.ndarray]:
    return [relevance(lab_set.corpora[q.corpus], q) for q in lab_set.queries]


def per_query_metrics(ranks: list[float]) -> dict[str, np.ndarray]:
    r = np.asarray(ranks, dtype=float)
    return {
        "success@1": (r <= 1).astype(float),
        "success@10": (r <= 10).astype(float),
        "mrr": np.where(np.isfinite(r), 1 / r, 0.0),
        "ndcg@10": np.where(r <= 10, 1 / np.log2(r + 1), 0.0),
    }


def summarise(ranks: list[float]) -> dict[str, list[float]]:
    """Each metric as [mean, 95% low, 95% high]."""
    return {
        key: [round(x, 4) for x in bootstrap_ci(values)]
        for key, values in per_query_metrics(ranks).items()
    }


def compare(ranks: list[float], baseline: list[float]) -> dict[str, dict]:
    a, b = per_query_metrics(ranks), per_query_metrics(baseline)
    return {
        key: {
            k: round(v, 4) if isinstance(v, float) else v
            for k, v in paired_difference(a[key], b[key]).items()
        }
        for key in ("success@1", "mrr", "ndcg@10")
    }


def cosine_scores(
    query_vector: np.ndarray, unit_vectors: np.ndarray, eligible: np.ndarray | None
) -> np.ndarray:
    scores = unit_vectors @ query_vector
    if eligible is not None:
        scores = np.where(eligible, scores, -np.inf)
    return scores


def corpus_query_groups(queries: list[LabQuery]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index, query in enumerate(queries):
        groups.setdefault(query.corpus, []).append(index)
    return groups
