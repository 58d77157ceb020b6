"""Scores from different sources put on one scale before they are added: the learned ranker's
score beside the code cosine (search.ranking.order), a retrieval score beside an LLM's
judgement (agents.rerank). Here so that both reach it without importing each other."""

from __future__ import annotations

import numpy as np


def zscore(values: np.ndarray) -> np.ndarray:
    """(values - mean) / standard deviation; all zeros when the values do not vary."""
    std = values.std()
    return (values - values.mean()) / std if std > 0 else np.zeros_like(values)
