"""Results grouped by file: for a caller that asks "which files should I read?".

Files come in the order of their best result; each keeps its best units (at most `per_file`,
in rank order) with their lines. The ranking is the search's own: grouping only gathers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from search.results import SearchResult

GROUPS = ("unit", "file")
PER_FILE = 3


@dataclass
class FileGroup:
    rank: int
    path: str
    repository: str
    score: float  # its best result's
    results: list[SearchResult] = field(default_factory=list)
    matched: int = 0  # how many of the ranked results lie in the file (some beyond `per_file`)

    @property
    def lines(self) -> list[tuple[int, int]]:
        return [(r.unit.start_line, r.unit.end_line) for r in self.results]


def group_by_file(results: list[SearchResult], *, per_file: int = PER_FILE) -> list[FileGroup]:
    """`results` (best first) gathered by file, files in the order of their best result."""
    groups: dict[tuple[str, str], FileGroup] = {}
    for result in results:
        key = (result.repository, result.unit.path)
        group = groups.get(key)
        if group is None:
            group = groups[key] = FileGroup(
                len(groups) + 1, result.unit.path, result.repository, result.score
            )
        group.matched += 1
        if len(group.results) < per_file:
            group.results.append(result)
    return list(groups.values())


def group_as_dict(group: FileGroup, units: list[dict[str, Any]]) -> dict[str, Any]:
    """A file group as the API and MCP give it, `units` being its results already shown as
    the caller shows a result."""
    return {
        "rank": group.rank,
        "path": group.path,
        "repository": group.repository,
        "score": round(group.score, 6),
        "matched": group.matched,
        "lines": [list(span) for span in group.lines],
        "units": units,
    }
