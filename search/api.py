"""JSON API with an OpenAPI schema (django-ninja): /api/search, /api/locate, /api/similar,
/api/repos. Docs at /api/docs."""

from __future__ import annotations

import logging
from datetime import datetime

from ninja import File, Form, NinjaAPI, Query, Schema
from ninja.errors import ValidationError
from ninja.files import UploadedFile
from pydantic import Field

from accounts.api_auth import WRITE_AUTH, ErrorOut, caller
from indexing.models import IndexRun
from indexing.selectors import (
    RepositoryRefused,
    latest_run,
    repositories_visible_to,
    repository_for_management,
    with_latest_runs,
)
from indexing.services import IndexingError, index_run_start, repository_delete, repository_submit
from search.across import search_across
from search.errors import search_unavailable_message
from search.exact_presenters import lines_for_api
from search.file_groups import grouped_results
from search.params import (
    LOCATE_PARAMS,
    SEARCH_PARAMS,
    SIMILAR_PARAMS,
    ParamError,
    SearchRequest,
    api_schema,
    repository_suggestion,
    search_params,
)
from search.presenters import (
    freshness_as_dict,
    lead_notices,
    located_for_api,
    response_for_api,
    run_as_dict,
)
from search.ratelimit import search_refusal
from search.services import SearchError
from search.similar import code_query, similar_across, unit_for_similar

logger = logging.getLogger(__name__)
api = NinjaAPI(title="RepoRift API", version="1", urls_namespace="api")


@api.exception_handler(ValidationError)
def _invalid(request, exc: ValidationError):
    """A value of the wrong type (`k=many`): a 400 with one sentence, like every other error
    of the API, instead of django-ninja's 422 list."""
    first = exc.errors[0] if exc.errors else {}
    where = ".".join(str(part) for part in first.get("loc", ())[1:]) or "request"
    return api.create_response(
        request, {"detail": f"{where}: {first.get('msg', 'invalid value')}"}, status=400
    )


def visible_repository(request, name: str):
    user, ok = caller(request)
    if not ok:
        return None, (401, {"detail": "invalid API token"})
    repository = repositories_visible_to(user).filter(name=name).first()
    if repository is None:  # private ones are reported exactly like missing ones
        return None, (404, {"detail": repository_suggestion(user=user, name=name)})
    return repository, None


def visible_repositories(request, names: list[str]):
    """The named repositories (each must be visible), or every visible one with an index."""
    if not names:
        user, ok = caller(request)
        if not ok:
            return None, (401, {"detail": "invalid API token"})
        return list(repositories_visible_to(user).filter(active_run__isnull=False)), None
    found = []
    for name in dict.fromkeys(names):
        repository, error = visible_repository(request, name)
        if error:
            return None, error
        found.append(repository)
    return found, None


class ExcerptOut(Schema):
    signature_line: int
    start_line: int
    end_line: int
    text: str
    signature: str
    matched: list[str]


class ResultOut(Schema):
    rank: int
    unit_id: int
    repository: str
    path: str
    qualname: str
    kind: str
    language: str  # the unit's file's: "python", "go", "markdown"...
    start_line: int
    end_line: int
    score: float
    streams: list[str]
    signature: str
    docstring: str
    reason: str
    excerpt: ExcerptOut
    code: str | None = None


class FileOut(Schema):
    rank: int
    path: str
    repository: str
    score: float
    matched: int  # how many of the results lie in the file
    lines: list[list[int]]  # its units' [start, end], best first
    units: list[ResultOut]


class LineUnitOut(Schema):
    unit_id: int
    qualname: str
    kind: str
    start_line: int
    end_line: int


class LineHitOut(Schema):
    repository: str
    path: str
    line: int  # 1-based, as in the file
    text: str
    ranges: list[list[int]]  # each match's [start, end) in the line's characters
    before: list[str]  # up to two lines of context before, nearest last
    after: list[str]
    language: str
    unit: LineUnitOut | None  # the innermost function, method or class around the line


class LineFileOut(Schema):
    repository: str
    path: str
    count: int  # its matching lines, all of them (not only those shown)
    hits: list[LineHitOut] | None = None  # with group=file


class LinesOut(Schema):
    patterns: list[str]
    total: int  # matching lines in all (or the count's cap when counted_all is false)
    counted_all: bool
    limit: int
    limit_reached: bool
    narrowed_by: str  # "trigram index", "bounded scan" (no trigram to look up), "definitions"
    scanned_all: bool  # false: a bounded scan stopped at its budget
    hits: list[LineHitOut]
    files: list[LineFileOut]


class SearchOut(Schema):
    query: str
    mode: str
    mode_used: str
    index_phase: int
    notices: list[str]
    timings_ms: dict[str, float]
    results: list[ResultOut]
    files: list[FileOut] | None = None  # with group=file
    # A query with a "literal", a /pattern/ or symbol: (exact search): the matching lines.
    lines: LinesOut | None = None


SEARCH_RESPONSES = {
    200: SearchOut,
    400: ErrorOut,
    401: ErrorOut,
    404: ErrorOut,
    429: ErrorOut,
    503: ErrorOut,
}


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
    answering_phase: int
    phase2_status: str
    phase2_units_total: int
    phase2_units_embedded: int
    phase2_error: str
    notice: str  # "no files RepoRift can read" for a run that found nothing to index


class RepositoryOut(Schema):
    name: str
    source_kind: str
    units: int
    searchable: bool  # it has a finished index
    latest_run: RunOut | None
    commit: str  # of the generation searches read
    last_checked_at: datetime | None  # when the git remote was last asked (indexing.sync)
    sync_every_minutes: int | None
    sync_error: str


def run_out(run: IndexRun | None) -> dict | None:
    return None if run is None else run_as_dict(run)


_REPOSITORIES = Field(
    [], description="repeat to search several; none: every repository the caller sees"
)
SearchParams = api_schema(
    "SearchParams",
    SEARCH_PARAMS,
    repo=(list[str], _REPOSITORIES),
    code=(bool, Field(False, description="each result's whole code too")),
)
SimilarParams = api_schema(
    "SimilarParams",
    SIMILAR_PARAMS,
    repo=(list[str], _REPOSITORIES),
    code=(str, Field("", description="the snippet to find code like, or")),
    unit=(int | None, Field(None, description="an indexed unit's id (a result's `unit_id`)")),
    with_code=(bool, Field(False, description="each result's whole code too")),
)


def managed(request, name: str):
    try:
        return repository_for_management(user=request.user, name=name), None
    except RepositoryRefused as exc:
        return None, (exc.status, {"detail": str(exc)})


def _answered(request, params, ask, *, similar: bool = False, code: bool):
    """One search of the caller's repositories (`repo`, or all it may see), counted against
    its rate limit: its parameters checked, then `ask(repositories, checked)` answers, and its
    failures become the API's errors."""
    try:
        checked = search_params(params.model_dump(), SIMILAR_PARAMS if similar else SEARCH_PARAMS)
    except ParamError as exc:
        return 400, {"detail": str(exc)}
    mode = "fast" if similar else checked["mode"]
    repositories, error = visible_repositories(request, params.repo)
    if error:
        return error
    user, _ = caller(request)
    refusal = search_refusal(request, user, mode=mode)
    if refusal is not None:
        return refusal.status, {"detail": refusal.message}
    try:
        response = ask(repositories, checked)
    except SearchError as exc:
        return 400, {"detail": str(exc)}
    except Exception as exc:
        logger.exception("API search failed")
        return 503, {"detail": search_unavailable_message(exc)}
    lead_notices(response, repositories=repositories, similar=similar)
    out = response_for_api(response, code=code)
    if checked.values.get("group") == "file":
        out["files"] = grouped_results(out["results"])
    if response.lines is not None:
        out["lines"] = lines_for_api(response.lines, group=checked.values.get("group", "unit"))
    return 200, out


@api.get("/search", response=SEARCH_RESPONSES)
def api_search(request, params: Query[SearchParams]):
    """Rank the units of a repository for a natural-language query, best first. Anonymous
    callers see public repositories; a session or bearer token adds the caller's own.

    The query box's syntax: `"exact text"` (a literal; `\\"` for a quote inside), `/regex/` or
    `/regex/i` (RE2 syntax, linear time; `\\/` for a slash), `path:DIR` and `-path:DIR` (a
    folder prefix or a glob), `lang:go`, `kind:method`, `symbol:NAME`, and free words. A
    literal, a pattern or a symbol makes the search exact: `lines` holds the matching lines
    (each with its line number, context, the function, method or class around it, and the
    matches' ranges), up to `limit`, with the count per file and in total; `results` are the
    units they lie in; the free words order them by meaning. A mistake in the syntax is a 400
    that says at which character."""

    def ask(repositories, checked: SearchRequest):
        return search_across(repositories=repositories, **checked.search_arguments())

    return _answered(request, params, ask, code=params.code)


@api.post("/search", response=SEARCH_RESPONSES)
def api_search_post(request, params: SearchParams):
    """`GET /search` with its fields in a JSON body: for a query too long for a URL, such as a
    whole issue (up to 32,000 characters), whose results are the units of the files it points
    to (`POST /locate` ranks the files themselves)."""
    return api_search(request, params)


class LocatedFileOut(Schema):
    rank: int
    path: str
    repository: str
    score: float
    reasons: list[str]  # what brought it: "traceback frame (line 12 in parse)", "defines `X`"
    lines: list[list[int]]  # its best units' [start, end]
    units: list[ResultOut]


class LocateOut(Schema):
    index_phase: int
    notices: list[str]
    timings_ms: dict[str, float]
    clues: dict  # what was read from the issue: title, frames, paths, names, errors
    files: list[LocatedFileOut]


LocateParams = api_schema(
    "LocateParams",
    LOCATE_PARAMS,
    repo=(str, Field(..., description="the repository to look in")),
    code=(bool, Field(False, description="each unit's whole code too")),
)


@api.post(
    "/locate",
    response={
        200: LocateOut,
        400: ErrorOut,
        401: ErrorOut,
        404: ErrorOut,
        429: ErrorOut,
        503: ErrorOut,
    },
)
def api_locate(request, params: LocateParams):
    """Paste an issue (a bug report with its traceback, snippets, commands), get the files of
    the repository to change, best first, each with why it came and its best units."""
    from search.locate import locate_files

    try:
        checked = search_params(params.model_dump(), LOCATE_PARAMS)
    except ParamError as exc:
        return 400, {"detail": str(exc)}
    repository, error = visible_repository(request, params.repo)
    if error:
        return error
    user, _ = caller(request)
    refusal = search_refusal(request, user, mode=checked["mode"])
    if refusal is not None:
        return refusal.status, {"detail": refusal.message}
    try:
        located = locate_files(repository=repository, **checked.locate_arguments())
    except SearchError as exc:
        return 400, {"detail": str(exc)}
    except Exception as exc:
        logger.exception("API locate failed")
        return 503, {"detail": search_unavailable_message(exc)}
    return 200, located_for_api(located, code=params.code)


@api.get("/similar", response=SEARCH_RESPONSES)
def api_similar(request, params: Query[SimilarParams]):
    """The units that do what a snippet (`code`) or an indexed unit (`unit`, a result's
    `unit_id`) does, best first, the unit itself left out. POST the same fields as JSON for a
    snippet too long for a URL."""
    return _similar(request, params)


@api.post("/similar", response=SEARCH_RESPONSES)
def api_similar_post(request, params: SimilarParams):
    """`GET /similar` with its fields in a JSON body."""
    return _similar(request, params)


def _similar(request, params: SimilarParams):
    def ask(repositories, checked: SearchRequest):
        unit = None
        if params.unit is not None:
            unit = unit_for_similar(repositories=repositories, unit_id=params.unit)
        return similar_across(
            repositories=repositories,
            query=code_query(code=params.code, unit=unit),
            k=checked["k"],
            filters=checked.filters,
        )

    return _answered(request, params, ask, similar=True, code=params.with_code)


@api.get("/repos", response={200: list[RepositoryOut], 401: ErrorOut})
def api_repositories(request):
    """Repositories the caller may search."""
    user, ok = caller(request)
    if not ok:
        return 401, {"detail": "invalid API token"}
    return 200, [
        {
            "name": r.name,
            "source_kind": r.source_kind,
            "units": r.active_run.units_total if r.active_run else 0,
            "searchable": r.active_run_id is not None,
            "latest_run": run_out(run),
            **freshness_as_dict(r),
        }
        for r, run in with_latest_runs(repositories_visible_to(user))
    ]


@api.get("/repos/{name}/run", response={200: RunOut, 401: ErrorOut, 404: ErrorOut})
def api_latest_run(request, name: str):
    """Progress of the newest index run of a repository."""
    repository, error = visible_repository(request, name)
    if error:
        return error
    run = latest_run(repository=repository)
    if run is None:
        return 404, {"detail": "never indexed"}
    return 200, run_out(run)


class ExactIndexOut(Schema):
    repository: str
    chunks: int  # runs of up to 32 lines of its files, under the trigram index
    text_chars: int
    bytes_on_disk: int  # its share of the exact index's bytes (by its characters); -1: unknown
    all_bytes_on_disk: int  # the exact index of every repository: the table and its index


@api.get("/repos/{name}/exact-index", response={200: ExactIndexOut, 401: ErrorOut, 404: ErrorOut})
def api_exact_index(request, name: str):
    """How much the exact index (the lines that literals and regular expressions search) holds
    of a repository's active generation, and its size on disk."""
    from indexing.exact_index import index_size

    repository, error = visible_repository(request, name)
    if error:
        return error
    return 200, {"repository": repository.name, **index_size(repository_id=repository.pk)}


@api.delete("/repos/{name}", response={204: None, 403: ErrorOut, 404: ErrorOut}, auth=WRITE_AUTH)
def api_delete_repository(request, name: str):
    """Delete a repository with its index and vectors (its owner or staff)."""
    repository, refusal = managed(request, name)
    if refusal:
        return refusal
    repository_delete(repository=repository)
    return 204, None


@api.post(
    "/repos/{name}/reindex", response={202: RunOut, 403: ErrorOut, 404: ErrorOut}, auth=WRITE_AUTH
)
def api_reindex_repository(request, name: str):
    repository, refusal = managed(request, name)
    if refusal:
        return refusal
    return 202, run_out(index_run_start(repository=repository))


@api.post("/repos", response={202: RunOut, 400: ErrorOut}, auth=WRITE_AUTH)
def api_index_repository(
    request,
    name: Form[str],
    git_url: Form[str] = "",
    ref: Form[str] = "",
    is_public: Form[bool] = True,
    archive: File[UploadedFile] | None = None,
):
    """Create a repository from a git URL or an uploaded archive and start indexing it."""
    try:
        run = repository_submit(
            user=request.user,
            name=name,
            git_url=git_url,
            ref=ref,
            archive=archive,
            is_public=is_public,
        )
    except IndexingError as exc:
        return 400, {"detail": str(exc)}
    run.refresh_from_db()
    return 202, run_out(run)
