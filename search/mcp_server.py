"""RepoRift for coding agents: an MCP server (the official `mcp` SDK's FastMCP, 1.x: CrewAI pins
`mcp<2`) with seven tools, served over stdio (`manage.py mcp --user NAME`) and over streamable
HTTP at `/mcp` of the web app (`search.mcp_http`).

Every tool acts as one caller with exactly the JSON API's visibility: anonymous callers see
public repositories, a token's user also their own, staff everything; a private repository of
someone else looks missing. Searches count against the same rate limits as the page and the
API. Code is served from the index (units and the stored file contents), never from the disk,
so no path outside an indexed repository can be read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.transport_security import TransportSecuritySettings

from search import mcp_actions as actions

INSTRUCTIONS = """\
RepoRift searches indexed repositories (20 languages, their docs and configuration) by meaning.
Start with list_repositories, then search_code with a plain-language description of the
behaviour you are looking for (e.g. "where do we retry failed HTTP calls") or a name. Working on
an issue? Pass its whole text (title, traceback, snippets; up to 32,000 characters) to
locate_files: it returns the files to change, best first, each with why it came (a traceback
frame, a name it defines, an error message it raises) and its best units. Results are functions,
methods and classes with their file, line span and a short excerpt; fetch a whole unit or a
file's lines with get_code; find code that does what a snippet or a found unit does with
find_similar_code; see what a found unit does when called with run_example (an LLM writes and
runs a short example in a sandbox). For an exact string or a regular expression (an error
message, a config key, `fetch_\\w+_async`) call grep_code: it answers from an index in
milliseconds with each matching line, its line number and the function around it; search_code
takes the same syntax in its query ("exact text", /regex/i, path:, lang:, kind:, symbol:). Fast
mode answers in well under a second; full mode asks an LLM and can take many seconds."""

# What identifies the caller of a tool call: a user, or None for an anonymous caller. It raises
# ToolError when the caller must be refused.
ResolveUser = Callable[[Context], Any]


def _caller_request(ctx: Context | None, user) -> SimpleNamespace:
    """What the rate limiter reads of a request: its method and client address (stdio's, or
    none for a tool called in-process, which has no request context)."""
    try:
        request = getattr(ctx.request_context, "request", None) if ctx is not None else None
    except ValueError:  # FastMCP: "Context is not available outside of a request"
        request = None
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

    async def caller(ctx: Context, *, fresh: bool = False):
        """The caller and their reach. `fresh`: the working tree is brought up to date first,
        for every tool that reads its code (an agent edits the tree between calls, and may
        read a unit back without searching first)."""
        user = await run(resolve_user, ctx)
        if fresh and working_tree is not None:
            await run(actions.refresh, working_tree)
        return user, actions.reachable(user, working_tree)

    async def searched(ctx: Context, action, arguments: dict[str, Any]) -> dict[str, Any]:
        """A search tool's call: the caller's reach and its rate limit, then `action`."""
        user, reach = await caller(ctx, fresh=True)
        return await run(action, reach, user, _caller_request(ctx, user), arguments)

    async def scope(ctx: Context):
        return (await caller(ctx))[1]

    @server.tool()
    async def list_repositories(ctx: Context) -> dict[str, Any]:
        """List the code repositories you may search, with how many units (functions,
        methods, classes) each has indexed and whether it is searchable yet."""
        return await run(actions.list_repositories, await scope(ctx))

    @server.tool()
    async def search_code(
        query: str,
        ctx: Context,
        repository: str = "",
        repositories: list[str] | None = None,
        k: int = 10,
        mode: str = "fast",
        path: str = "",
        kinds: list[str] | None = None,
        exclude_tests: bool = False,
        group: str = "unit",
        languages: list[str] | None = None,
    ) -> dict[str, Any]:
        """Find the functions, methods and classes that do what the query describes in
        plain language ("where do we retry failed HTTP calls?"), best first, in `repository`,
        in several (`repositories`), or in every repository you may see (neither given). Each
        result has its file path, qualified name, kind, line span, score, the retrieval streams
        that found it, its signature and a short excerpt; get_code returns the whole unit.
        `path` keeps results under a folder prefix ("pkg/sub/") or matching a glob
        ("*/models.py"); `kinds` keeps only those kinds (function, method, class, module,
        section); `exclude_tests` drops test files; `languages` keeps only those languages
        ("go", "typescript", "markdown", "yaml"...; each result says its `language`). `mode`
        is "fast", or "full" only when fast
        results miss: it asks an LLM and is much slower. `group="file"` adds `files`: the
        files to read, ranked, each with its best units and their lines."""
        arguments = {
            "repositories": [repository] if repository else list(repositories or []),
            "query": query,
            "k": k,
            "mode": mode,
            "path": path,
            "kinds": kinds or [],
            "exclude_tests": exclude_tests,
            "group": group,
            "languages": languages or [],
        }
        return await searched(ctx, actions.search, arguments)

    @server.tool()
    async def grep_code(
        pattern: str,
        ctx: Context,
        repository: str = "",
        repositories: list[str] | None = None,
        fixed_strings: bool = False,
        ignore_case: bool = False,
        path: str = "",
        languages: list[str] | None = None,
        words: str = "",
        limit: int = 100,
        group: str = "unit",
    ) -> dict[str, Any]:
        """Find the lines that match a regular expression (RE2 syntax, as ripgrep reads it:
        `fetch_\\w+_async`, `^\\s*@deprecated`), or a literal string with
        `fixed_strings=true`, in `repository`, several (`repositories`), or every repository
        you may see. Each hit has its path, line number, text, the matches' character ranges,
        two lines of context and the function, method or class around it (qualname and line
        span, for get_code). `lines.files` counts the matching lines per file and `lines.total`
        in all; at most `limit` lines (up to 500) are returned and `limit_reached` says when
        there were more. `path` keeps files under a folder prefix or matching a glob,
        `languages` those languages; `words` orders the lines by what they mean (the units a
        search for those words ranks first come first). `group="file"` nests each file's
        lines in `lines.files`."""
        arguments = {
            "repositories": [repository] if repository else list(repositories or []),
            "pattern": pattern,
            "fixed_strings": fixed_strings,
            "ignore_case": ignore_case,
            "words": words,
            "limit": limit,
            "path": path,
            "group": group,
            "languages": languages or [],
        }
        return await searched(ctx, actions.grep, arguments)

    @server.tool()
    async def locate_files(
        issue: str,
        ctx: Context,
        repository: str = "",
        k: int = 10,
        mode: str = "fast",
        path: str = "",
        exclude_tests: bool = False,
        languages: list[str] | None = None,
    ) -> dict[str, Any]:
        """The files to change for an issue: pass the issue's whole text as written (title,
        description, traceback, error messages, code blocks, commands; up to 32,000
        characters; nothing is cut). Returns the repository's files, best first (`k` of them,
        up to 100), each with `reasons` (what in the issue points at it: a traceback frame, a
        path it mentions, a name the file defines, an error message its code says, its words)
        and its best units with their lines; and the `clues` read from the issue. `path`,
        `languages` and `exclude_tests` filter the files as search_code's do. `repository` may
        be left out when you can reach only one. `mode="full"` also asks an LLM to name
        suspects (slower; seconds to a minute)."""
        arguments = {
            "repository": repository,
            "issue": issue,
            "k": k,
            "mode": mode,
            "path": path,
            "exclude_tests": exclude_tests,
            "languages": languages or [],
        }
        return await searched(ctx, actions.locate, arguments)

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
        languages: list[str] | None = None,
    ) -> dict[str, Any]:
        """Find the functions, methods and classes that do what a piece of code does ("where
        else do we do this?"): pass the snippet as `code`, or name an indexed unit by
        `unit_repository` and `qualname` (and `path` when the name is not unique), as
        search_code returns them; the unit itself is left out. Searches `repository`, several
        (`repositories`), or every repository you may see (neither given). Results are shaped
        like search_code's, each with its code-vector, word and shape similarity; units of the
        code's own language come first (`languages` keeps only those)."""
        arguments = {
            "repositories": [repository] if repository else list(repositories or []),
            "code": code,
            "unit_repository": unit_repository,
            "qualname": qualname,
            "path": path,
            "k": k,
            "exclude_tests": exclude_tests,
            "languages": languages or [],
        }
        return await searched(ctx, actions.similar, arguments)

    @server.tool()
    async def run_example(
        repository: str,
        qualname: str,
        ctx: Context,
        path: str = "",
        wait_s: int = 60,
    ) -> dict[str, Any]:
        """Run what you found: an LLM writes a short program that imports the unit (named as
        search_code returns it: repository, qualname, and path when the name is not unique),
        calls it on example inputs and checks what comes back; it runs in a sandbox. Returns
        the program, its output and whether its check passed, marked with the model that wrote
        it. Waits up to `wait_s` seconds (at most 300); if it is not finished by then, call
        again with the same arguments to get the same example."""
        user, reach = await caller(ctx, fresh=True)
        arguments = {"repository": repository, "qualname": qualname, "path": path}
        request = _caller_request(ctx, user)
        example = await run(actions.start_example, reach, user, request, arguments)
        deadline = time.monotonic() + max(0, min(wait_s, 300))
        while not example["finished"] and time.monotonic() < deadline:
            await asyncio.sleep(1.0)
            example = await run(actions.example_state, example["id"])
        return example

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
        _, reach = await caller(ctx, fresh=True)
        return await run(actions.get_code, reach, arguments)

    @server.tool()
    async def index_status(repository: str, ctx: Context) -> dict[str, Any]:
        """The newest index run of a repository: status (queued, running, succeeded, failed),
        phase, percent done, file and unit counts, warnings and error."""
        return await run(actions.index_status, await scope(ctx), repository)

    return server
