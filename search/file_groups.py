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
    def more(self) -> int:
        """The file's results not among its best units."""
        return self.matched - len(self.results)

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


def grouped_results(results: list[dict[str, Any]], *, per_file: int = PER_FILE) -> list[dict]:
    """Result rows as a client already shows them (the API's, MCP's: each with its `path`,
    `repository` and lines), gathered by file: `{rank, path, repository, score, matched,
    lines, units}`, files in the order of their best row."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for row in results:
        key = (row.get("repository", ""), row["path"])
        group = groups.setdefault(
            key,
            {
                "rank": len(groups) + 1,
                "path": row["path"],
                "repository": row.get("repository", ""),
                "score": row.get("score", 0.0),
                "matched": 0,
                "lines": [],
                "units": [],
            },
        )
        group["matched"] += 1
        if len(group["units"]) < per_file:
            group["units"].append(row)
            group["lines"].append([row["start_line"], row["end_line"]])
    return list(groups.values())
