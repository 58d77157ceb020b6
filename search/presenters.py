"""Search results as plain data: one shape for the CLI's JSON, the API and the page."""

from __future__ import annotations

from typing import Any

from indexing.models import IndexRun, Repository
from search.highlight import highlight_unit
from search.services import SearchResponse, SearchResult


def result_as_dict(result: SearchResult) -> dict[str, Any]:
    """The result fields of the command-line contract (docs/ARCHITECTURE.md), in its order."""
    unit = result.unit
    return {
        "rank": result.rank,
        "path": unit.path,
        "qualname": unit.qualname,
        "kind": unit.kind,
        "start_line": unit.start_line,
        "end_line": unit.end_line,
        "score": round(result.score, 6),
        "streams": result.streams,
    }


def result_for_api(result: SearchResult) -> dict[str, Any]:
    return {
        **result_as_dict(result),
        "signature": result.unit.signature,
        "docstring": result.unit.docstring,
        "reason": result.reason,
        "code": result.unit.code,
    }


def stage_timings(response: SearchResponse) -> str:
    return ", ".join(
        f"{stage} {ms:.1f}" for stage, ms in response.timings_ms.items() if stage != "total"
    )


def response_for_api(response: SearchResponse) -> dict[str, Any]:
    return {
        "query": response.query,
        "mode": response.mode,
        "mode_used": response.mode_used,
        "notices": response.notices,
        "timings_ms": response.timings_ms,
        "results": [result_for_api(r) for r in response.results],
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
    }


def result_for_page(result: SearchResult) -> dict[str, Any]:
    html, cut = highlight_unit(result.unit.code, result.unit.start_line)
    return {"result": result, "unit": result.unit, "code_html": html, "code_cut": cut}


def freshness_as_dict(repository: Repository) -> dict[str, Any]:
    """What the API and MCP say of how current a repository's index is."""
    active = repository.active_run
    return {
        "commit": active.commit_sha if active else "",
        "last_checked_at": repository.last_checked_at,
        "sync_every_minutes": repository.sync_every_minutes,
        "sync_error": repository.last_check_error,
    }
