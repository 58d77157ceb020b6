"""Reciprocal-rank fusion with per-stream weights: a small pure function.

score(u) = sum over streams s that ranked u of  weight_s / (k + rank_s(u)),  rank from 1.

Weights matter: on docstring-like queries plain RRF of BM25 with MiniLM is worse than MiniLM
alone (lexical false positives climb), so the weights come from measurements on dev data.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60


@dataclass
class FusedHit:
    key: Hashable
    score: float
    ranks: dict[str, int] = field(default_factory=dict)  # stream name -> 1-based rank

    @property
    def streams(self) -> list[str]:
        return sorted(self.ranks)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[Hashable]],
    *,
    weights: Mapping[str, float] | None = None,
    k: int = RRF_K,
    limit: int | None = None,
) -> list[FusedHit]:
    """Fuse ranked lists (best first) into one, best first. Ties keep first-seen order, which
    follows the order of `rankings`. Streams with weight 0 still record where they found a unit."""
    hits: dict[Hashable, FusedHit] = {}
    for stream, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(stream, 1.0)
        for rank, key in enumerate(ranking, start=1):
            hit = hits.get(key)
            if hit is None:
                hit = hits[key] = FusedHit(key=key, score=0.0)
            if stream in hit.ranks:
                continue  # a stream lists each unit once; keep its best rank
            hit.ranks[stream] = rank
            hit.score += weight / (k + rank)
    fused = sorted(hits.values(), key=lambda h: -h.score)
    return fused if limit is None else fused[:limit]
