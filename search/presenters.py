"""Search results as plain data: one shape for the CLI's JSON, the API and the page."""

from __future__ import annotations

from typing import Any

from indexing.models import IndexRun, Repository
from indexing.selectors import nothing_to_read_message, nothing_to_read_notices
from search.excerpts import Excerpt, excerpt, source_lines
from search.highlight import HighlightedUnit
from search.results import SearchResponse, SearchResult


def result_as_dict(result: SearchResult) -> dict[str, Any]:
    """The result fields of the command-line contract (docs/ARCHITECTURE.md), in its order."""
    unit = result.unit
    return {
        "rank": result.rank,
        "path": unit.path,
        "qualname": unit.qualname,
        "kind": unit.kind,
        "language": unit.language,
        "start_line": unit.start_line,
        "end_line": unit.end_line,
        "score": round(result.score, 6),
        "streams": result.streams,
    }


# What the fold opens to: the whole unit, but for the rare giant (a generated class) no page
# should pay to highlight.
WHOLE_UNIT_LINES = 400


def result_excerpt(result: SearchResult, query: str) -> Excerpt:
    return excerpt(result.unit.code, result.unit.start_line, query)


def numbered(text: str, first_line: int) -> str:
    """Lines prefixed with their file line numbers, as agents read them best."""
    # Split as the excerpt was, so a form feed inside a line does not shift the numbers after it.
    lines = source_lines(text) if text else []
    return "\n".join(f"{first_line + i:>5}  {line}" for i, line in enumerate(lines))


def result_for_api(result: SearchResult, query: str, *, code: bool = False) -> dict[str, Any]:
    out = {
        **result_as_dict(result),
        # What `similar` takes to find code like this result.
        "unit_id": result.unit.pk,
        "repository": result.repository,
        "signature": result.unit.signature,
        "docstring": result.unit.docstring,
        "reason": result.reason,
        "excerpt": result_excerpt(result, query).as_dict(),
    }
    if code:
        out["code"] = result.unit.code
    return out


# What the streams and stages are called where people read them (search.streams defines them).
STREAM_WORDS = {
    "S1": "code meaning",  # the query against the code vectors
    "S2": "generated code",  # code an LLM wrote for the query, against the code vectors
    "S3": "generated parts",  # that code's component functions, each against functions
    "S4": "same words",  # BM25 over identifiers, docstrings and code
    "S5": "reworded query",  # the LLM's augmented query, against functions
    "S6": "description",  # the query against the signature-and-docstring vectors
    "S7": "defines the name",  # units that define a name typed as the query
    "issue": "read from the issue",  # an issue's clues located the file (search.locate)
    "vector": "code vectors",  # code to code (search.similar)
    "bm25": "same words",
}
STREAM_HELP = {
    "S1": "the query's meaning matched against the meaning of the code",
    "S2": "code an LLM wrote for the query, matched against the code",
    "S3": "the parts of the LLM's code, each matched against functions",
    "S4": "words of the query found in names, docstrings and code (BM25)",
    "S5": "the query reworded by the LLM, matched against functions",
    "S6": "the query's meaning matched against signatures and docstrings",
    "S7": "it defines a name typed in the query",
    "issue": "the issue's frames, paths, names, messages and words point at its file",
    "vector": "its code means much the same",
    "bm25": "it uses the same words",
}
STAGE_WORDS = {
    **{name: STREAM_WORDS[name] for name in ("S1", "S2", "S3", "S4", "S5", "S6", "S7")},
    "embed": "reading the snippet",
    "vector": "code vectors",
    "bm25": "same words",
    "resolve": "looking up the units",
    "likeness": "comparing code",
    "order": "ordering",
    "augment": "LLM rewording",
    "codegen": "LLM writing code",
    "rerank": "LLM reranking",
}


def no_close_match_notice(response: SearchResponse) -> str:
    """Code to code: when even the most alike unit scores under the configured likeness (in
    [0, 1], the same in every repository), say so plainly rather than let a list of weak
    matches pass for an answer."""
    from search.retrieval import search_config

    below = search_config()["SIMILAR"]["CLOSE"]
    if not response.results or response.results[0].comparable >= below:
        return ""
    best = response.results[0].comparable
    return (
        f"no close match: the most alike code scores {best:.2f} of 1 (close copies score "
        f"{below:.2f} or more); what follows may do something else"
    )


def lead_notices(response: SearchResponse, *, repositories, similar: bool = False) -> bool:
    """The notices every client puts first: for code to code, "no close match"; then the
    repositories whose index holds nothing. Whether there were such repositories."""
    empty = nothing_to_read_notices(repositories)
    close = no_close_match_notice(response) if similar else ""
    response.notices[:0] = [close, *empty] if close else empty
    return bool(empty)


def stream_labels(streams: list[str]) -> list[dict[str, str]]:
    """A result's streams as the page shows them: words, with what each means on hover."""
    return [
        {"name": s, "label": STREAM_WORDS.get(s, s), "help": STREAM_HELP.get(s, s)} for s in streams
    ]


def stage_timings(response: SearchResponse) -> str:
    """Where a search's time went, in words, for the page's details."""
    return ", ".join(
        f"{STAGE_WORDS.get(stage, stage)} {ms:.1f} ms"
        for stage, ms in response.timings_ms.items()
        if stage not in ("total", "repositories")
    )


def response_for_api(response: SearchResponse, *, code: bool = False) -> dict[str, Any]:
    return {
        "query": response.query,
        "mode": response.mode,
        "mode_used": response.mode_used,
        "index_phase": response.index_phase,
        "notices": response.notices,
        "timings_ms": response.timings_ms,
        "results": [result_for_api(r, response.query, code=code) for r in response.results],
    }


def run_as_dict(run: IndexRun) -> dict[str, Any]:
    """An index run's progress, as the API and the MCP tools report it."""
    return {
        "id": run.pk,
        "repository": run.repository.name,
        "status": run.status,
        "phase": run.phase,
        "percent": run.percent,
        "files_total": run.files_total,
        "files_done": run.files_done,
        "units_total": run.units_total,
        "units_embedded": run.units_embedded,
        "warnings": run.warnings,
        "error": run.error,
        "commit_sha": run.commit_sha,
        # Which vectors answer its searches: none (0) until the run has made an index.
        "answering_phase": run.answering_phase if run.status == IndexRun.Status.SUCCEEDED else 0,
        "notice": nothing_to_read_message(run),
        "phase2_status": run.phase2_status,
        "phase2_units_total": run.phase2_units_total,
        "phase2_units_embedded": run.phase2_units_embedded,
        "phase2_error": run.phase2_error,
    }


def result_for_page(result: SearchResult, query: str) -> dict[str, Any]:
    """The excerpt (signature line, then the window), the lines folded before and after it,
    and the whole unit for the fold to open."""
    unit = result.unit
    chosen = result_excerpt(result, query)
    # One lexing of the whole unit for every part: a window lexed alone is coloured wrongly when
    # it starts inside a docstring.
    code = HighlightedUnit(unit.code, unit.start_line, language=unit.language, path=unit.path)
    window_html = code.lines(chosen.start_line, chosen.end_line)
    signature_html = code.line_stripped(chosen.signature_line) if chosen.signature else ""
    whole_html, cut = code.whole(max_lines=WHOLE_UNIT_LINES)
    return {
        "result": result,
        "unit": unit,
        "streams": stream_labels(result.streams),
        "excerpt": chosen,
        "signature_html": signature_html,
        "window_html": window_html,
        "folded_before": max(0, chosen.start_line - chosen.signature_line - 1),
        "folded_after": max(0, unit.end_line - chosen.end_line),
        "folded": chosen.start_line > unit.start_line or chosen.end_line < unit.end_line,
        "code_html": whole_html,
        "code_cut": cut,
        "shown_lines": WHOLE_UNIT_LINES,
    }


def _shown_lines(item: dict[str, Any]) -> set[int]:
    """The file lines a unit's code shows on the page: its signature line and window when
    folded, else the whole unit."""
    unit, chosen = item["unit"], item["excerpt"]
    if item["folded"]:
        return {chosen.signature_line, *range(chosen.start_line, chosen.end_line + 1)}
    return set(range(unit.start_line, unit.end_line + 1))


def located_file_for_page(file, focus: str) -> dict[str, Any]:
    """A located file as the page shows it: each of its lines' code once. Where two of its
    units would show the same lines, one keeps its name and says where they are: a unit inside
    one shown whole (a small class and its method) points to it; a folded one whose best lines
    are those of a unit inside it (a long class and its method) points to that unit."""
    items = [result_for_page(r, focus) for r in file.units]
    shown = [_shown_lines(item) for item in items]

    def order(i: int) -> tuple:
        # Whole units first, the widest first; then folded ones, the innermost first: so the
        # unit that keeps the code comes before the units that point to it.
        unit, folded = items[i]["unit"], items[i]["folded"]
        size = unit.end_line - unit.start_line
        return (folded, size if folded else -size, i)

    kept: list[int] = []
    for i in sorted(range(len(items)), key=order):
        owner = next((j for j in kept if shown[i] & shown[j]), None)
        if owner is None:
            kept.append(i)
            continue
        lines = sorted(shown[i] & shown[owner])
        items[i]["shown_with"] = {
            "unit": items[owner]["unit"],
            "whole": shown[i] <= shown[owner] and not items[owner]["folded"],
            "first": lines[0],
            "last": lines[-1],
            "where": "above" if owner < i else "below",
        }
    return {"rank": file.rank, "path": file.path, "reasons": file.reasons, "units": items}


def freshness_as_dict(repository: Repository) -> dict[str, Any]:
    """What the API and MCP say of how current a repository's index is."""
    active = repository.active_run
    return {
        "commit": active.commit_sha if active else "",
        "last_checked_at": repository.last_checked_at,
        "sync_every_minutes": repository.sync_every_minutes,
        "sync_error": repository.last_check_error,
    }


def located_for_api(located, *, code: bool = False) -> dict[str, Any]:
    """`search.locate`'s answer as the API and MCP give it: the files, best first, each with
    why it came and its best units (their lines and excerpts), and the clues read."""
    clues = located.clues
    # Excerpts are chosen by the title and names, not by its whole text.
    focus = " ".join([clues.title, *clues.names[:20]])
    return {
        "index_phase": located.index_phase,
        "notices": located.notices,
        "timings_ms": located.timings_ms,
        "clues": {
            "title": clues.title,
            "frames": [
                {"path": f.path, "line": f.line, "function": f.function} for f in clues.frames
            ],
            "paths": clues.paths,
            "names": clues.names[:40],
            "errors": [{"type": t, "message": m} for t, m in clues.errors],
            "code_blocks": len(clues.code_blocks),
        },
        "files": [
            {
                "rank": f.rank,
                "path": f.path,
                "repository": f.repository,
                "score": f.score,
                "reasons": f.reasons,
                "lines": [[r.unit.start_line, r.unit.end_line] for r in f.units],
                "units": [result_for_api(r, focus, code=code) for r in f.units],
            }
            for f in located.files
        ],
    }
