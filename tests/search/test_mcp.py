"""The MCP server through the SDK's own clients: over stdio (`manage.py mcp`, a real subprocess)
and over streamable HTTP at `/mcp` of the WSGI app (a real HTTP server), with API tokens."""

from __future__ import annotations

import asyncio
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from accounts.services import api_token_create, api_token_revoke
from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES
from tests.support.workers import manage_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "list_repositories",
    "search_code",
    "get_code",
    "index_status",
    "find_similar_code",
    "run_example",
    "locate_files",
    "grep_code",
}
# A copy of shop.text.slugify_title with every name changed.
RENAMED_SLUGIFY = 'def make_slug(heading):\n    return "-".join(heading.lower().split())\n'


@pytest.fixture
def people(django_user_model, write_repo):
    """alice owns a private repository; bob owns the public shop."""
    alice = django_user_model.objects.create_user("alice", password="pw-123456789")
    bob = django_user_model.objects.create_user("bob", password="pw-123456789")
    for name, owner, public in (("shop", bob, True), ("secret", alice, False)):
        repository = repository_create(
            name=name, source=str(write_repo(SAMPLE_FILES)), owner=owner, is_public=public
        )
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        assert run.status == "succeeded", run.error
    return alice, bob


async def exercise(session: ClientSession) -> dict:
    """What every transport must show: the tools, a search, a unit, and the refusals."""
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    found = await session.call_tool(
        "search_code", {"repository": "shop", "query": "charge a credit card", "k": 3}
    )
    unit = await session.call_tool(
        "get_code",
        {"repository": "shop", "path": "shop/payments.py", "qualname": "PaymentGateway.charge"},
    )
    lines = await session.call_tool(
        "get_code", {"repository": "shop", "path": "shop/text.py", "start_line": 2, "end_line": 3}
    )
    escape = await session.call_tool(
        "get_code", {"repository": "shop", "path": "../../../../etc/passwd"}
    )
    listed = await session.call_tool("list_repositories", {})
    private = await session.call_tool("search_code", {"repository": "secret", "query": "retry"})
    status = await session.call_tool("index_status", {"repository": "shop"})
    similar = await session.call_tool(
        "find_similar_code", {"code": RENAMED_SLUGIFY, "repository": "shop", "k": 3}
    )
    like_secret = await session.call_tool(
        "find_similar_code",
        {"unit_repository": "secret", "qualname": "slugify_title", "repository": "shop"},
    )
    return {
        "similar": similar,
        "like_secret": like_secret,
        "tools": tools,
        "found": found,
        "unit": unit,
        "lines": lines,
        "escape": escape,
        "listed": listed,
        "private": private,
        "status": status,
    }


def check_answers(answers: dict, *, sees_secret: bool) -> None:
    assert set(answers["tools"]) == TOOLS
    assert "plain language" in answers["tools"]["search_code"].description
    found = answers["found"]
    assert not found.isError, found.content
    top = found.structuredContent["results"][0]
    assert (top["path"], top["qualname"], top["kind"]) == (
        "shop/payments.py",
        "PaymentGateway.charge",
        "method",
    )
    assert top["start_line"] > 0 and "18  def charge(" in top["excerpt"]  # numbered lines
    for result in answers["found"].structuredContent["results"]:
        assert result["reason"]
        span = range(result["start_line"], result["end_line"] + 1)
        assert result["excerpt_start_line"] in span and result["excerpt_end_line"] in span
    unit = answers["unit"].structuredContent
    assert unit["code"].startswith("def charge(self, amount_cents, card_token):")
    lines = answers["lines"].structuredContent
    assert lines["code"].splitlines() == [
        "def slugify_title(title):",
        '    """Turn a title into a URL slug: lowercase words joined by hyphens."""',
    ]
    assert answers["escape"].isError
    assert "no indexed file" in answers["escape"].content[0].text
    names = {r["name"] for r in answers["listed"].structuredContent["repositories"]}
    listed = answers["listed"].structuredContent["repositories"][0]
    assert {"commit", "last_checked_at", "sync_every_minutes", "sync_error"} <= set(listed)
    assert names == ({"shop", "secret"} if sees_secret else {"shop"})
    assert answers["private"].isError is (not sees_secret)
    assert answers["status"].structuredContent["status"] == "succeeded"
    similar = answers["similar"].structuredContent["results"]
    assert similar[0]["qualname"] == "slugify_title" and "same shape" in similar[0]["reason"]
    # Like a unit of a private repository: refused for those who may not see it.
    assert answers["like_secret"].isError is (not sees_secret)
    if sees_secret:  # the private unit itself is in another repository: shop's twin is first
        found = answers["like_secret"].structuredContent["results"]
        assert (found[0]["repository"], found[0]["qualname"]) == ("shop", "slugify_title")


def test_stdio_as_a_named_user(people):
    env = manage_env()

    async def as_user(name: str) -> dict:
        params = StdioServerParameters(
            command=sys.executable, args=["manage.py", "mcp", "--user", name], env=env, cwd=ROOT
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await exercise(session)

    check_answers(asyncio.run(as_user("bob")), sees_secret=False)
    check_answers(asyncio.run(as_user("alice")), sees_secret=True)


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def served():
    """The site as gunicorn serves it (reporift.wsgi.application), on a free loopback port."""
    from reporift.wsgi import application

    server = make_server(
        "127.0.0.1", 0, application, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/mcp"
    finally:
        server.shutdown()
        server.server_close()


async def over_http(url: str, token: str | None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        return await exercise(session)


def test_streamable_http_with_api_tokens(people):
    alice, _ = people
    _, key = api_token_create(user=alice, name="agent")
    revoked, revoked_key = api_token_create(user=alice, name="old")
    api_token_revoke(token=revoked)
    with served() as url:
        check_answers(asyncio.run(over_http(url, key)), sees_secret=True)
        check_answers(asyncio.run(over_http(url, None)), sees_secret=False)  # anonymous
        refused = httpx.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "Authorization": f"Bearer {revoked_key}",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
        page = httpx.get(url.removesuffix("/mcp") + "/")  # the rest of the site is Django
        assert page.status_code == 200 and "RepoRift" in page.text
