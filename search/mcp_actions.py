"""What the MCP tools do (`search.mcp_server` declares them): each a plain function of the
caller's scope (the repositories it may reach) and the tool's arguments, run in a worker
thread, raising ToolError with a message meant for the agent."""

from __future__ import annotations

from typing import Any

from mcp.server.fastmcp.exceptions import ToolError

from reporift.words import plural

MAX_LINES = 400


def reachable(user, working_tree=None):
    """The repositories a tool call may reach: the caller's visible ones, or the one working
    tree the server was started for (`mcp --path`; its operator named it)."""
    from indexing.models import Repository
    from indexing.selectors import repositories_visible_to

    if working_tree is not None:
        return Repository.objects.filter(pk=working_tree.pk)
    return repositories_visible_to(user)


def visible(scope, name: str):
    from search.params import unknown_repository_message

    repository = scope.filter(name=name).first()
    if repository is None:
        known = scope.values_list("name", flat=True)
        raise ToolError(
            f"{unknown_repository_message(name, known)} (list_repositories shows yours)"
        )
    return repository


def checked(arguments: dict[str, Any], *, similar: bool = False):
    """The tool's arguments checked as every client's are (`search.params`), by the names the
    API uses."""
    from search.params import SEARCH_PARAMS, SIMILAR_PARAMS, ParamError, search_params

    raw = {
        "q": arguments.get("query"),
        "k": arguments.get("k"),
        "mode": arguments.get("mode"),
        "path": arguments.get("path"),
        "kind": arguments.get("kinds"),
        "exclude_tests": arguments.get("exclude_tests"),
        "lang": arguments.get("languages"),
        "group": arguments.get("group"),
        "limit": arguments.get("limit"),
    }
    try:
        return search_params(raw, SIMILAR_PARAMS if similar else SEARCH_PARAMS)
    except ParamError as exc:
        raise ToolError(str(exc)) from exc


def list_repositories(scope) -> dict[str, Any]:
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
            for freshness in [freshness_of(r)]
        ]
    }


def freshness_of(repository) -> dict[str, Any]:
    from search.presenters import freshness_as_dict

    fresh = freshness_as_dict(repository)
    checked = fresh["last_checked_at"]
    return fresh | {"last_checked_at": checked.isoformat() if checked else None}


def search(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    from search.across import search_across
    from search.ratelimit import search_refusal
    from search.services import SearchError

    request_ = checked(arguments)
    if arguments["repositories"]:
        repositories = [visible(scope, name) for name in dict.fromkeys(arguments["repositories"])]
    else:
        repositories = list(scope.filter(active_run__isnull=False))
    refusal = search_refusal(request, user, mode=request_["mode"])
    if refusal is not None:
        raise ToolError(refusal.message)
    try:
        response = search_across(repositories=repositories, **request_.search_arguments())
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    from search.presenters import lead_notices

    lead_notices(response, repositories=repositories)
    out = answer(repositories, response)
    if request_["group"] == "file":
        from search.file_groups import grouped_results

        out["files"] = grouped_results(out["results"])
    if response.lines is not None:
        from search.exact_presenters import lines_for_api

        out["lines"] = lines_for_api(response.lines, group=request_["group"])
    return out


def grep(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    """grep_code: the pattern spelt in the search box's syntax and searched as search_code
    would search it, so both (and the API, and `reporift grep`) give the same lines."""
    from search.query_syntax import grep_query
    from search.services import SearchError

    try:
        query = grep_query(
            arguments["pattern"],
            fixed=arguments["fixed_strings"],
            ignore_case=arguments["ignore_case"],
            words=arguments["words"],
        )
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    out = search(scope, user, request, {**arguments, "query": query, "k": 10, "mode": "fast"})
    return {
        "repositories": out["repositories"],
        "query": query,
        "notices": out["notices"],
        "lines": out["lines"],
    }


def locate(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    """`locate_files`: the issue's files in one repository (the only one reachable when the
    caller names none)."""
    from search.locate import locate_files
    from search.params import LOCATE_PARAMS, ParamError, search_params
    from search.presenters import located_for_api
    from search.ratelimit import search_refusal
    from search.services import SearchError

    raw = {
        "issue": arguments.get("issue"),
        "k": arguments.get("k"),
        "mode": arguments.get("mode"),
        "path": arguments.get("path"),
        "exclude_tests": arguments.get("exclude_tests"),
        "lang": arguments.get("languages"),
    }
    try:
        checked = search_params(raw, LOCATE_PARAMS)
    except ParamError as exc:
        raise ToolError(str(exc)) from exc
    name = arguments.get("repository") or ""
    if not name:
        searchable = list(scope.filter(active_run__isnull=False)[:2])
        if len(searchable) != 1:
            raise ToolError("name the repository to look in (list_repositories shows yours)")
        repository = searchable[0]
    else:
        repository = visible(scope, name)
    refusal = search_refusal(request, user, mode=checked["mode"])
    if refusal is not None:
        raise ToolError(refusal.message)
    try:
        located = locate_files(repository=repository, **checked.locate_arguments())
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    return {"repository": repository.name, **located_for_api(located)}


def answer(repositories, response) -> dict[str, Any]:
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
                **excerpt_for_agents(result, response.query),
            }
            for result in response.results
        ],
    }


def named_unit(scope, repository: str, qualname: str, path: str):
    """The indexed unit named as search_code returns it; a name that is not unique needs its
    path."""
    from indexing.selectors import active_units

    owner = visible(scope, repository)
    units = active_units(repository=owner).filter(qualname=qualname)
    if path:
        units = units.filter(path=path)
    found = list(units[:2])
    if len(found) != 1:
        where = "no" if not found else "more than one"
        raise ToolError(
            f"{where} unit {qualname!r} in {owner.name}; give its `path` as search_code returned it"
        )
    return found[0]


def start_example(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    from tryouts.presenters import example_as_dict
    from tryouts.services import ExampleError, example_request

    unit = named_unit(scope, arguments["repository"], arguments["qualname"], arguments["path"])
    try:
        return example_as_dict(example_request(unit=unit, user=user, request=request))
    except ExampleError as exc:
        raise ToolError(str(exc)) from exc


def example_state(example_id: int) -> dict[str, Any]:
    from tryouts.models import UnitExample
    from tryouts.presenters import example_as_dict

    return example_as_dict(UnitExample.objects.select_related("repository").get(pk=example_id))


def similar(scope, user, request, arguments: dict[str, Any]) -> dict[str, Any]:
    """Code like a snippet, or like a unit named by repository, qualname and (when the name is
    not unique) path, across the repositories in reach or in `repositories`."""
    from search.ratelimit import search_refusal
    from search.services import SearchError
    from search.similar import code_query, similar_across

    request_ = checked({**arguments, "path": ""}, similar=True)
    if arguments["repositories"]:
        repositories = [visible(scope, name) for name in dict.fromkeys(arguments["repositories"])]
    else:
        repositories = list(scope.filter(active_run__isnull=False))
    unit = None
    if arguments["qualname"]:
        if not arguments["unit_repository"]:
            raise ToolError("name the repository of the unit (`unit_repository`) too")
        unit = named_unit(
            scope, arguments["unit_repository"], arguments["qualname"], arguments["path"]
        )
    refusal = search_refusal(request, user, mode="fast")
    if refusal is not None:
        raise ToolError(refusal.message)
    try:
        response = similar_across(
            repositories=repositories,
            query=code_query(code=arguments["code"], unit=unit),
            k=request_["k"],
            filters=request_.filters,
        )
    except SearchError as exc:
        raise ToolError(str(exc)) from exc
    from search.presenters import lead_notices

    lead_notices(response, repositories=repositories, similar=True)
    return answer(repositories, response)


def excerpt_for_agents(result, query: str) -> dict[str, Any]:
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


def get_code(scope, arguments: dict[str, Any]) -> dict[str, Any]:
    from indexing.selectors import active_file, active_units

    repository = visible(scope, arguments["repository"])
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
        raise ToolError(f"{path} has {plural(len(lines), 'line')}")
    return {
        "path": path,
        "start_line": start,
        "end_line": end,
        "total_lines": len(lines),
        "code": "\n".join(lines[start - 1 : end]),
    }


def index_status(scope, name: str) -> dict[str, Any]:
    from indexing.selectors import latest_run
    from search.presenters import run_as_dict

    repository = visible(scope, name)
    run = latest_run(repository=repository)
    if run is None:
        raise ToolError(f"{repository.name} was never indexed")
    return run_as_dict(run)


def refresh(working_tree) -> None:
    """The tree's edits, additions and deletions indexed before a search reads it."""
    from indexing.services import IndexingError
    from indexing.working_tree import refresh

    try:
        refresh(working_tree)
    except IndexingError as exc:
        raise ToolError(str(exc)) from exc
