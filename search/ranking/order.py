"""Order a search's candidates with the learned ranker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from indexing.models import CodeUnit
from reporift.standardise import zscore
from search.ranking.explain import explain
from search.ranking.features import FEATURES, Candidate, feature_matrix
from search.ranking.model import LearnedRanker, RankerUnavailable


class CandidateScores(Protocol):
    def candidate_scores(
        self, text: str, unit_ids: list[int]
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]: ...


def candidate_features(
    *, query: str, units: dict[int, CodeUnit], retriever: CandidateScores
) -> np.ndarray:
    """The feature matrix of `units` (rows in the dict's order), exactly as search computes it
    (training uses this too). Refuses (RankerUnavailable) when the vector scores cannot be
    had: a ranker fed zeros for them would order at random."""
    ids = list(units)
    cos_code, cos_header, bm25 = retriever.candidate_scores(query, ids)
    if ids and not (cos_code and cos_header):
        raise RankerUnavailable("the vector store did not give the candidates' scores")
    candidates = [
        Candidate(units[i], cos_code.get(i, 0.0), cos_header.get(i, 0.0), bm25.get(i, 0.0))
        for i in ids
    ]
    return feature_matrix(query, candidates)


def blended_scores(
    features: np.ndarray, ranker_scores: np.ndarray, code_weight: float
) -> np.ndarray:
    """The ranker's score plus `code_weight` times the code cosine, both standardised over the
    query's candidates. The ranker learned from docstring-like queries over repositories, where
    names and shared words point at the answer; on web-style questions (CoSQA) they mislead it,
    and the code cosine alone does better. The weight (docs/BENCHMARKS.md) keeps most of the
    ranker's gain on the first and loses nothing measurable on the second."""
    cos_code = features[:, FEATURES.index("cos_code")].astype(float)
    return zscore(ranker_scores) + code_weight * zscore(cos_code)


@dataclass
class LearnedOrder:
    ranked: list[tuple[int, float]]  # (unit id, score), best first
    reasons: dict[int, str]  # for the first `explain_top` of them
    raw: dict[int, float]  # the ranker's own score, before the per-query blend


def learned_order(
    *,
    query: str,
    units: dict[int, CodeUnit],
    retriever: CandidateScores,
    ranker: LearnedRanker,
    code_weight: float = 0.0,
    explain_top: int = 0,
) -> LearnedOrder:
    ids = list(units)
    features = candidate_features(query=query, units=units, retriever=retriever)
    scored = ranker.scored(features)
    ranker_scores = scored.scores
    scores = blended_scores(features, ranker_scores, code_weight)
    order = np.argsort(-scores, kind="stable")
    reasons = {}
    top = order[:explain_top]
    if len(top):
        contributions = ranker.contributions(scored.leaves[top])
        # The blend's code term, put back on the ranker's own scale (the blend standardises
        # the ranker's scores; its spread converts between them).
        spread = float(np.std(ranker_scores)) or 1.0
        cos_code = features[:, FEATURES.index("cos_code")].astype(float)
        code_parts = code_weight * zscore(cos_code)[top] * spread
        for row, j in enumerate(top):
            reasons[ids[j]] = explain(
                query=query,
                unit=units[ids[j]],
                contributions=contributions[row],
                code_part=float(code_parts[row]),
            )
    return LearnedOrder(
        list(zip([ids[j] for j in order.tolist()], scores[order].tolist(), strict=True)),
        reasons,
        dict(zip(ids, ranker_scores.tolist(), strict=True)),
    )
