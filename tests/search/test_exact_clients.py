"""Exact search in every entry point: the JSON API, an MCP client (through the SDK's own client
session), the `reporift grep` and `reporift search` commands and the page give the same lines."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.search.test_exact import FILES

pytestmark = pytest.mark.django_db(transaction=True)

PATTERNS = [
    # (the box's query, grep's pattern, grep's options)
    (r"/fetch_\w+_async/", r"fetch_\w+_async", []),
    ('".with_retries("', ".with_retries(", ["-F"]),
    ("/todo: (cache|write)/i", "todo: (cache|write)", ["-i"]),
    (r"/^\s*}$/", r"^\s*}$", []),
]


@pytest.fixture
def app(indexed_repo):
    return indexed_repo("app", FILES)


def api_lines(client, query: str, **params) -> list[tuple[str, int, str | None]]:
    answer = client.get("/api/search", {"repo": "app", "q": query, **params})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    return [
        (h["path"], h["line"], h["unit"] and h["unit"]["qualname"]) for h in body["lines"]["hits"]
    ]


def mcp_call(tool: str, arguments: dict) -> dict:
    from mcp.shared.memory import create_connected_server_and_client_session

    from search.mcp_server import build_server

    async def call():
        server = build_server(lambda ctx: None)
        async with create_connected_server_and_client_session(server._mcp_server) as session:
            result = await session.call_tool(tool, arguments)
            assert not result.isError, result.content[0].text
            return json.loads(result.content[0].text)

    return asyncio.run(call())


def rows(hits: list[dict]) -> list[tuple[str, int, str | None]]:
    return [(h["path"], h["line"], h["unit"] and h["unit"]["qualname"]) for h in hits]


@pytest.mark.parametrize("query, pattern, options", PATTERNS)
def test_api_mcp_and_cli_give_the_same_lines(client, app, capsys, query, pattern, options):
    expected = api_lines(client, query)
    assert expected
    searched = mcp_call("search_code", {"query": query, "repository": "app"})
    assert rows(searched["lines"]["hits"]) == expected
    grepped = mcp_call(
        "grep_code",
        {
            "pattern": pattern,
            "repository": "app",
            "fixed_strings": "-F" in options,
            "ignore_case": "-i" in options,
        },
    )
    assert rows(grepped["lines"]["hits"]) == expected
    capsys.readouterr()
    call_command("grep", "app", pattern, *options, "--json")
    assert rows(json.loads(capsys.readouterr().out)) == expected
    call_command("search", "app", query, "--json")
    assert rows(json.loads(capsys.readouterr().out)) == expected


def test_group_file_counts_per_file_and_in_total(client, app):
    body = client.get("/api/search", {"repo": "app", "q": '"TODO"', "group": "file"}).json()
    lines = body["lines"]
    assert lines["total"] == 4 and sum(f["count"] for f in lines["files"]) == 4
    assert all(len(f["hits"]) == f["count"] for f in lines["files"])
    assert {r["qualname"] for r in body["results"]} >= {"fetch_user_async", "Handle"}


def test_a_bad_pattern_is_a_400_that_says_where(client, app):
    answer = client.get("/api/search", {"repo": "app", "q": "retry /a(b/"})
    assert answer.status_code == 400
    assert "missing )" in answer.json()["detail"] and "at character 8" in answer.json()["detail"]
    with pytest.raises(CommandError, match="missing"):
        call_command("grep", "app", "a(b")


def test_the_cli_prints_lines_like_grep(app, capsys):
    call_command("grep", "app", "TODO", "--files", "app/")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "app/config.py:18:    # TODO: cache the user    [fetch_user_async]",
        "app/handlers.go:5:\t// TODO: check the method    [Handle]",
    ]


def test_the_page_marks_the_match(client, app):
    page = client.get("/search/", {"repo": "app", "q": '"with_retries(3)" lang:python'})
    html = page.content.decode()
    assert page.status_code == 200
    assert "<mark>with_retries(3)</mark>" in html
    assert "1 matching line in 1 file" in html and "fetch_user_async" in html
    # Lines need no LLM: asked in full mode, the page answers them at once.
    page = client.get("/search/", {"repo": "app", "q": "/TODO: check/", "mode": "full"})
    assert "<mark>TODO: check</mark>" in page.content.decode()


def test_anonymous_exact_searches_share_the_search_rate_limit(client, app, settings, monkeypatch):
    import time
    from types import SimpleNamespace

    import django_ratelimit.core
    from django.core.cache import cache

    cache.clear()
    frozen = time.time()  # one window of the limiter's clock (tests/security/test_ratelimit.py)
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: frozen))
    limits = {**settings.REPORIFT["LIMITS"], "SEARCH_RATE_PER_MINUTE": 2}
    settings.REPORIFT = {**settings.REPORIFT, "LIMITS": limits}
    codes = [
        client.get("/api/search", {"repo": "app", "q": '"TODO"'}).status_code for _ in range(3)
    ]
    assert codes == [200, 200, 429]
    cache.clear()
