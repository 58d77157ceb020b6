"""RepoRift for coding agents: an MCP server (the official `mcp` SDK's FastMCP, 1.x: CrewAI pins
`mcp<2`) with five tools, served over stdio (`manage.py mcp --user NAME`) and over streamable
HTTP at `/mcp` of the web app (`search.mcp_http`).

Every tool acts as one caller with exactly the JSON API's visibility: anonymous callers see
public repositories, a token's user also their own, staff everything; a private repository of
someone else looks missing. Searches count against the same rate limits as the page and the
API. Code is served from the index (units and the stored file contents), never from the disk,
so no path outside an indexed repository can be read.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Literal

from asgiref.sync import sync_to_async
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

MAX_LINES = 400

INSTRUCTIONS = """\
RepoRift searches indexed Python repositories by meaning. Start with list_repositories, then
search_code with a plain-language description of the behaviour you are looking for (e.g. "where
do we retry failed HTTP calls"). Results are functions, methods and classes with their file,
line span and a short excerpt; fetch a whole unit or a file's lines with get_code; find code that
does what a snippet or a found unit does with find_similar_code. Fast mode
answers in well under a second; full mode asks an LLM and can take many seconds."""

# What identifies the caller of a tool call: a user, or None for an anonymous caller. It raises
# ToolError when the caller must be refused.
ResolveUser = Callable[[Context], Any]


def _caller_request(ctx: Context | None, user) -> SimpleNamespace:
    """What the rate limiter reads of a request: its method and client address."""
    request = getattr(ctx.request_context, "request", None) if ctx is not None else None
    client = getattr(request, "client", None)
    headers = getattr(request, "headers", {}) or {}
    return SimpleNamespace(
        method="POST",
        META={
            "REMOTE_ADDR": getattr(client, "host", "") or "stdio",
            "HTTP_X_FORWARDED_FOR": headers.get("x-forwarded-for", ""),
        },
        user=user,
    )


def _scope(user, working_tree=None):
    """The repositories a tool call may reach: the caller's visible ones, or the one working
    tree the server was started for (`mcp --path`; its operator named it)."""
    from indexing.models import Repository
    from indexing.selectors import repositories_visible_to

    if working_tree is not None:
        return Repository.objects.filter(pk=working_tree.pk)
    return repositories_visible_to(user)


def _visible(scope, name: str):
    repository = scope.filter(name=name).first()
    if repository is None:
        raise ToolError(f"no repository named {name!r} (list_repositories shows yours)")
    return repository


def _list_repositories(scope) -> dict[str, Any]:
    from indexing.selectors import with_latest_runs

    return {
        "repositories": [
            {
                "name": r.name,
                "units": r.active_run.units_total if r.active_run else 0,
                "searchable": r.active_run_id is not None,
                "index_phase": r.active_run.answering_phase if r.active_run else 0,
                "latest_run_status": run.status if run else "never indexed",
                **freshness,
            }
            for r, run in with_latest_runs(scope)
            for freshness in [_freshness(r)]
        ]
    }


def _freshness(repository) -> dict[str, Any]:
    from search.presenters import freshness_as_dict

    fresh = freshness_as_dict(repository)
    checked = fresh["last_checked_at"]
    return fresh | {"last_checked_at": checked.isoformat() if checked else None}


def _search(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    from search.across import search_across
    from search.filters import SearchFilters
    from search.ratelimit import search_refusal
    from search.services import SearchError

    if arguments["repositories"]:
        repositories = [_visible(scope, name) for name in dict.fromkeys(arguments["repositories"])]
    else:
        repositories = list(scope.filter(active_run__isnull=False))
    refusal = search_refusal(request, user, mode=arguments["mode"])
    if refusal is not None:
        raise ToolError(refusal.message)
    filters = SearchFilters(
        path=arguments["path"],
        kinds=tuple(arguments["kinds"]),
        exclude_tests=arguments["exclude_tests"],
    )
    try:
        response = search_across(
            repositories=repositories,
            query=arguments["query"],
            k=arguments["k"],
            mode=arguments["mode"],
            filters=filters,
        )
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    return _answer(repositories, response)


def _answer(repositories, response) -> dict[str, Any]:
    from search.presenters import result_as_dict

    return {
        "repositories": [r.name for r in repositories],
        "query": response.query,
        "mode_used": response.mode_used,
        "index_phase": response.index_phase,
        "notices": response.notices,
        "results": [
            {
                **result_as_dict(result),
                "repository": result.repository,
                "signature": result.unit.signature,
                "reason": result.reason,
                **_excerpt_for_agents(result, response.query),
            }
            for result in response.results
        ],
    }


def _similar(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    """Code like a snippet, or like a unit named by repository, qualname and (when the name is
    not unique) path, across the repositories in reach or in `repositories`."""
    from indexing.selectors import active_units
    from search.filters import SearchFilters
    from search.ratelimit import search_refusal
    from search.services import SearchError
    from search.similar import code_query, similar_across

    if arguments["repositories"]:
        repositories = [_visible(scope, name) for name in dict.fromkeys(arguments["repositories"])]
    else:
        repositories = list(scope.filter(active_run__isnull=False))
    unit = None
    if arguments["qualname"]:
        if not arguments["unit_repository"]:
            raise ToolError("name the repository of the unit (`unit_repository`) too")
        owner = _visible(scope, arguments["unit_repository"])
        units = active_units(repository=owner).filter(qualname=arguments["qualname"])
        if arguments["path"]:
            units = units.filter(path=arguments["path"])
        found = list(units[:2])
        if len(found) != 1:
            where = "no" if not found else "more than one"
            raise ToolError(
                f"{where} unit {arguments['qualname']!r} in {owner.name}; give its `path` "
                "as search_code returned it"
            )
        unit = found[0]
    refusal = search_refusal(request, user, mode="fast")
    if refusal is not None:
        raise ToolError(refusal.message)
    try:
        response = similar_across(
            repositories=repositories,
            query=code_query(code=arguments["code"], unit=unit),
            k=arguments["k"],
            filters=SearchFilters(exclude_tests=arguments["exclude_tests"]),
        )
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    return _answer(repositories, response)


def _excerpt_for_agents(result, query: str) -> dict[str, Any]:
    """The lines that answer the query, numbered as in the file, and the signature: an agent
    pays tokens for what matters and can ask get_code for the rest."""
    from search.presenters import numbered, result_excerpt

    chosen = result_excerpt(result, query)
    lines = numbered(chosen.text, chosen.start_line)
    if chosen.signature:
        lines = f"{numbered(chosen.signature, chosen.signature_line)}\n  ...\n{lines}"
    return {
        "excerpt": lines,
        "excerpt_start_line": chosen.start_line,
        "excerpt_end_line": chosen.end_line,
    }


def _get_code(scope, arguments: dict[str, Any]) -> dict[str, Any]:
    from indexing.selectors import active_file, active_units

    repository = _visible(scope, arguments["repository"])
    path, qualname = arguments["path"], arguments["qualname"]
    if qualname:
        unit = active_units(repository=repository).filter(path=path, qualname=qualname).first()
        if unit is None:
            raise ToolError(f"{repository.name} has no {qualname} in {path}")
        return {
            "path": unit.path,
            "qualname": unit.qualname,
            "kind": unit.kind,
            "start_line": unit.start_line,
            "end_line": unit.end_line,
            "code": unit.code,
        }
    version = active_file(repository=repository, path=path)
    if version is None:  # also every path outside the repository: only indexed paths exist
        raise ToolError(f"{repository.name} has no indexed file {path!r}")
    text = version.text()
    if text is None:
        raise ToolError(f"{path} was indexed before file contents were kept; re-index it")
    lines = text.splitlines()
    start = max(1, arguments["start_line"] or 1)
    end = min(len(lines), arguments["end_line"] or len(lines), start + MAX_LINES - 1)
    if start > len(lines):
        raise ToolError(f"{path} has {len(lines)} lines")
    return {
        "path": path,
        "start_line": start,
        "end_line": end,
        "total_lines": len(lines),
        "code": "\n".join(lines[start - 1 : end]),
    }


def _index_status(scope, name: str) -> dict[str, Any]:
    from indexing.selectors import latest_run
    from search.presenters import run_as_dict

    repository = _visible(scope, name)
    run = latest_run(repository=repository)
    if run is None:
        raise ToolError(f"{repository.name} was never indexed")
    return run_as_dict(run)


def _refresh(working_tree) -> None:
    """The tree's edits, additions and deletions indexed before a search reads it."""
    from indexing.services import IndexingError
    from indexing.working_tree import refresh

    try:
        refresh(working_tree)
    except IndexingError as exc:
        raise ToolError(str(exc)) from exc


def build_server(
    resolve_user: ResolveUser,
    *,
    stateless_http: bool = False,
    transport_security: TransportSecuritySettings | None = None,
    working_tree=None,
) -> FastMCP:
    """The MCP server; with `working_tree` (a Repository of `indexing.working_tree`) its tools
    reach that tree alone, and every search first brings its index up to date."""
    server = FastMCP(
        "RepoRift",
        instructions=INSTRUCTIONS,
        stateless_http=stateless_http,
        json_response=stateless_http,
        transport_security=transport_security,
    )

    def run(fn, *args):
        # Django's ORM may not run in the event loop's thread.
        return sync_to_async(fn, thread_sensitive=False)(*args)

    async def scope(ctx: Context):
        return _scope(await run(resolve_user, ctx), working_tree)

    @server.tool()
    async def list_repositories(ctx: Context) -> dict[str, Any]:
        """List the code repositories you may search, with how many units (functions,
        methods, classes) each has indexed and whether it is searchable yet."""
        return await run(_list_repositories, await scope(ctx))

    @server.tool()
    async def search_code(
        query: str,
        ctx: Context,
        repository: str = "",
        repositories: list[str] | None = None,
        k: int = 10,
        mode: Literal["fast", "full"] = "fast",
        path: str = "",
        kinds: list[Literal["function", "method", "class", "module"]] | None = None,
        exclude_tests: bool = False,
    ) -> dict[str, Any]:
        """Find the functions, methods and classes that do what the query describes in
        plain language ("where do we retry failed HTTP calls?"), best first, in `repository`,
        in several (`repositories`), or in every repository you may see (neither given). Each
        result has its file path, qualified name, kind, line span, score, the retrieval streams
        that found it, its signature and a short excerpt; get_code returns the whole unit.
        `path` keeps results under a folder prefix ("pkg/sub/") or matching a glob
        ("*/models.py"); `kinds` keeps only those kinds; `exclude_tests` drops test files.
        Use mode "full" only when fast results miss: it asks an LLM and is much slower."""
        user = await run(resolve_user, ctx)
        if working_tree is not None:
            await run(_refresh, working_tree)
        arguments = {
            "repositories": [repository] if repository else list(repositories or []),
            "query": query,
            "k": k,
            "mode": mode,
            "path": path,
            "kinds": kinds or [],
            "exclude_tests": exclude_tests,
        }
        return await run(
            _search, _scope(user, working_tree), user, _caller_request(ctx, user), arguments
        )

    @server.tool()
    async def find_similar_code(
        ctx: Context,
        code: str = "",
        unit_repository: str = "",
        qualname: str = "",
        path: str = "",
        repository: str = "",
        repositories: list[str] | None = None,
        k: int = 10,
        exclude_tests: bool = False,
    ) -> dict[str, Any]:
        """Find the functions, methods and classes that do what a piece of code does ("where
        else do we do this?"): pass the snippet as `code`, or name an indexed unit by
        `unit_repository` and `qualname` (and `path` when the name is not unique), as
        search_code returns them; the unit itself is left out. Searches `repository`, several
        (`repositories`), or every repository you may see (neither given). Results are shaped
        like search_code's, each with its code-vector, word and shape similarity."""
        user = await run(resolve_user, ctx)
        if working_tree is not None:
            await run(_refresh, working_tree)
        arguments = {
            "repositories": [repository] if repository else list(repositories or []),
            "code": code,
            "unit_repository": unit_repository,
            "qualname": qualname,
            "path": path,
            "k": k,
            "exclude_tests": exclude_tests,
        }
        return await run(
            _similar, _scope(user, working_tree), user, _caller_request(ctx, user), arguments
        )

    @server.tool()
    async def get_code(
        repository: str,
        path: str,
        ctx: Context,
        qualname: str = "",
        start_line: int = 0,
        end_line: int = 0,
    ) -> dict[str, Any]:
        """Read indexed code. With `qualname` (e.g. "RetryPolicy.backoff", as search_code
        returns it): that unit's whole source and line span. Without: lines `start_line` to
        `end_line` of the file `path` (1-based, inclusive; at most 400 lines; 0 means the start
        or the end of the file). Only files of the repository's index can be read."""
        arguments = {
            "repository": repository,
            "path": path,
            "qualname": qualname,
            "start_line": start_line,
            "end_line": end_line,
        }
        return await run(_get_code, await scope(ctx), arguments)

    @server.tool()
    async def index_status(repository: str, ctx: Context) -> dict[str, Any]:
        """The newest index run of a repository: status (queued, running, succeeded, failed),
        phase, percent done, file and unit counts, warnings and error."""
        return await run(_index_status, await scope(ctx), repository)

    return server
