"""What a search answers: its results and the response around them.

Their own module so that the code that makes them (search.services, search.full_mode,
search.across) and the code that shows them (presenters, API, MCP) share the types without
importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.models import CodeUnit


class SearchError(Exception):
    """A search request that cannot be answered; the message is meant for the user."""


@dataclass
class SearchResult:
    rank: int
    unit: CodeUnit
    score: float
    stream_ranks: dict[str, int]
    reason: str = ""
    # A score that means the same in every repository, for merging their results
    # (`search.across`): the learned ranker's raw score, which the per-query blend standardises
    # away; under fusion, the fused score.
    comparable: float = 0.0
    repository: str = ""

    @property
    def streams(self) -> list[str]:
        return sorted(self.stream_ranks)


@dataclass
class SearchResponse:
    query: str
    mode: str
    mode_used: str
    results: list[SearchResult]
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    candidates: int = 0
    llm_model: str = ""
    augmented_query: str = ""
    generated_code: str = ""
    rerank: bool = False
    ordered_by: str = ""  # "ranker" or "fusion"
    # Which phase of indexing answers (indexing.phase2): 1 while the static tier's vectors
    # serve, 2 once the transformer's do (and for a run that had only one phase).
    index_phase: int = 2
