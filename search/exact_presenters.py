"""Exact search's lines as plain data (the API, MCP, the command line's JSON) and as the page
shows them (the matches marked)."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from search.results import ExactLines, LineHit


def hit_as_dict(hit: LineHit) -> dict[str, Any]:
    """One matching line: the command line's `--json` row, the API's and MCP's `lines.hits`."""
    unit = hit.unit
    return {
        "repository": hit.repository,
        "path": hit.path,
        "line": hit.line,
        "text": hit.text,
        "ranges": [list(r) for r in hit.ranges],
        "before": hit.before,
        "after": hit.after,
        "language": hit.language,
        "unit": None
        if unit is None
        else {
            "unit_id": unit.pk,
            "qualname": unit.qualname,
            "kind": unit.kind,
            "start_line": unit.start_line,
            "end_line": unit.end_line,
        },
    }


def lines_for_api(lines: ExactLines, *, group: str = "unit") -> dict[str, Any]:
    """The whole answer: the lines shown, the count per file and in total, whether the limit
    was reached, how the index was read. `group="file"` nests each file's lines in it."""
    hits = [hit_as_dict(h) for h in lines.hits]
    files = [{"repository": r, "path": p, "count": n} for r, p, n in lines.files]
    if group == "file":
        by_file: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for hit in hits:
            by_file.setdefault((hit["repository"], hit["path"]), []).append(hit)
        files = [f | {"hits": by_file.get((f["repository"], f["path"]), [])} for f in files]
    return {
        "patterns": lines.patterns,
        "total": lines.total,
        "counted_all": lines.counted_all,
        "limit": lines.limit,
        "limit_reached": lines.limit_reached,
        "narrowed_by": lines.narrowed_by,
        "scanned_all": lines.scanned_all,
        "hits": hits,
        "files": files,
    }


def marked(text: str, ranges: list[tuple[int, int]]) -> SafeString:
    """The line escaped, its matches in <mark>."""
    out, at = [], 0
    for start, end in ranges:
        out += [escape(text[at:start]), "<mark>", escape(text[start:end]), "</mark>"]
        at = end
    out.append(escape(text[at:]))
    return mark_safe("".join(out))


def lines_for_page(lines: ExactLines) -> dict[str, Any]:
    """The page's section: files in order, each with its count and its lines marked."""
    files: dict[tuple[str, str], dict[str, Any]] = {}
    counts = {(r, p): n for r, p, n in lines.files}
    for hit in lines.hits:
        key = (hit.repository, hit.path)
        entry = files.setdefault(
            key, {"repository": hit.repository, "path": hit.path, "count": counts.get(key, 0)}
        )
        entry.setdefault("hits", []).append(
            {
                "line": hit.line,
                "html": marked(hit.text, hit.ranges),
                "before": [(hit.line - len(hit.before) + i, t) for i, t in enumerate(hit.before)],
                "after": [(hit.line + 1 + i, t) for i, t in enumerate(hit.after)],
                "unit": hit.unit,
            }
        )
    return {
        "lines": lines,
        "files": list(files.values()),
        "file_count": len(lines.files),
    }
