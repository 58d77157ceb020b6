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
class LineHit:
    """One matching line of exact search (`search.exact`), inside its unit."""

    repository: str
    path: str
    line: int  # 1-based
    text: str
    ranges: list[tuple[int, int]]  # the matches' [start, end) in the line's characters
    before: list[str] = field(default_factory=list)  # context, nearest last
    after: list[str] = field(default_factory=list)
    unit: CodeUnit | None = None  # the innermost function, method or class around it
    language: str = ""


@dataclass
class ExactLines:
    """What exact search found: the lines shown, and how many there are in all."""

    patterns: list[str]  # as typed: "literal", /regex/i
    hits: list[LineHit]
    total: int  # matching lines, all of them, or MAX_COUNT when `counted_all` is false
    files: list[tuple[str, str, int]]  # (repository, path, matching lines), in hit order
    limit: int  # most lines shown
    counted_all: bool = True
    narrowed_by: str = "trigram index"  # or "bounded scan" (no three characters to look up)
    scanned_all: bool = True  # a bounded scan that stopped early says so

    @property
    def limit_reached(self) -> bool:
        return len(self.hits) < self.total or not self.counted_all


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
    # Exact search's lines (a query with a literal, a pattern or a symbol: search.exact).
    lines: ExactLines | None = None
