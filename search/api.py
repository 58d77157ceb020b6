"""JSON API with an OpenAPI schema (django-ninja): /api/search, /api/repos. Docs at /api/docs."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from ninja import File, Form, NinjaAPI, Query, Schema
from ninja.files import UploadedFile
from ninja.security import django_auth

from indexing.models import IndexRun, Repository
from indexing.selectors import latest_run, repository_list
from indexing.services import (
    IndexingError,
    index_run_start,
    repository_create,
    repository_create_from_upload,
)
from search.presenters import response_for_api
from search.services import SearchError, SearchFilters, search
from search.vector_errors import search_unavailable_message

logger = logging.getLogger(__name__)
api = NinjaAPI(title="RepoRift API", version="1", urls_namespace="api")


class ResultOut(Schema):
    rank: int
    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    score: float
    streams: list[str]
    signature: str
    docstring: str
    reason: str
    code: str


class SearchOut(Schema):
    query: str
    mode: str
    mode_used: str
    notices: list[str]
    timings_ms: dict[str, float]
    results: list[ResultOut]


class ErrorOut(Schema):
    detail: str


class RunOut(Schema):
    id: int
    repository: str
    status: str
    phase: str
    percent: int
    files_total: int
    files_done: int
    units_total: int
    units_embedded: int
    warnings: list[str]
    error: str
    commit_sha: str


class RepositoryOut(Schema):
    name: str
    source_kind: str
    units: int
    latest_run: RunOut | None


def run_out(run: IndexRun | None) -> dict | None:
    if run is None:
        return None
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


class SearchParams(Schema):
    repo: str
    q: str
    k: int = 10
    mode: str = "fast"
    path: str = ""
    kind: list[str] = []
    exclude_tests: bool = False


@api.get("/search", response={200: SearchOut, 400: ErrorOut, 404: ErrorOut, 503: ErrorOut})
def api_search(request, params: Query[SearchParams]):
    """Rank the units of a repository for a natural-language query, best first."""
    repository = Repository.objects.filter(name=params.repo).first()
    if repository is None:
        return 404, {"detail": f"no repository named {params.repo!r}"}
    filters = SearchFilters(
        path=params.path, kinds=tuple(params.kind), exclude_tests=params.exclude_tests
    )
    try:
        response = search(
            repository=repository, query=params.q, k=params.k, mode=params.mode, filters=filters
        )
    except SearchError as exc:
        return 400, {"detail": str(exc)}
    except Exception as exc:
        logger.exception("API search failed")
        return 503, {"detail": search_unavailable_message(exc)}
    return 200, response_for_api(response)


@api.get("/repos", response=list[RepositoryOut])
def api_repositories(request):
    return [
        {
            "name": r.name,
            "source_kind": r.source_kind,
            "units": r.active_run.units_total if r.active_run else 0,
            "latest_run": run_out(latest_run(repository=r)),
        }
        for r in repository_list()
    ]


@api.get("/repos/{name}/run", response=RunOut)
def api_latest_run(request, name: str):
    """Progress of the newest index run of a repository."""
    repository = get_object_or_404(Repository, name=name)
    run = latest_run(repository=repository)
    if run is None:
        return api.create_response(request, {"detail": "never indexed"}, status=404)
    return run_out(run)


@api.post("/repos", response={202: RunOut, 400: ErrorOut}, auth=django_auth)
def api_index_repository(
    request,
    name: Form[str],
    git_url: Form[str] = "",
    ref: Form[str] = "",
    is_public: Form[bool] = True,
    archive: File[UploadedFile] | None = None,
):
    """Create a repository from a git URL or an uploaded archive and start indexing it."""
    if bool(git_url) == bool(archive):
        return 400, {"detail": "give either git_url or archive"}
    if Repository.objects.filter(name=name).exists():
        return 400, {"detail": f"a repository named {name!r} exists"}
    try:
        if archive is not None:
            repository = repository_create_from_upload(
                name=name, upload=archive, owner=request.user, is_public=is_public
            )
        else:
            repository = repository_create(
                name=name,
                source=git_url,
                source_kind=Repository.SourceKind.GIT,
                ref=ref,
                owner=request.user,
                is_public=is_public,
            )
    except ValidationError as exc:
        return 400, {"detail": "; ".join(exc.messages)}
    except IndexingError as exc:
        return 400, {"detail": str(exc)}
    run = index_run_start(repository=repository)
    run.refresh_from_db()
    return 202, run_out(run)
