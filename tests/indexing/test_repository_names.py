"""Repositories are named as their projects are on code hosts (`telescope.nvim`, `socket.io`):
such a name is accepted and reached everywhere; what cannot be a name is refused, saying why."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from accounts.services import api_token_create
from indexing.models import Repository
from indexing.repository_names import name_from_source, name_problem
from search.mcp_server import build_server
from tests.conftest import SAMPLE_FILES


@pytest.mark.parametrize(
    "name", ["telescope.nvim", "socket.io", "next.js", "lazy.nvim", ".github", "a_b-c.2", "x" * 100]
)
def test_code_host_names_are_names(name):
    assert name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("psf/requests", "'.', '-' and '_'"),
        ("my repo", "cannot name a repository"),
        ("..", "not made of dots alone"),
        ("", "give the repository a name"),
        ("x" * 101, "101 characters long"),
        ("naïve", "letters, digits"),
    ],
)
def test_what_cannot_be_a_name_is_refused_saying_why(name, why):
    assert why in name_problem(name)


def test_the_source_suggests_the_projects_own_name():
    assert name_from_source("https://github.com/nvim-telescope/telescope.nvim.git") == (
        "telescope.nvim"
    )
    assert name_from_source("/src/socket.io/") == "socket.io"
    assert name_from_source("/tmp/uploads/my project.tar.gz") == "my-project"


@pytest.fixture
def telescope(write_repo, capsys):
    call_command("index_repo", str(write_repo(SAMPLE_FILES)), "--name", "telescope.nvim")
    assert "indexed telescope.nvim" in capsys.readouterr().out
    return Repository.objects.get(name="telescope.nvim")


# MCP tools read the database from a worker thread: the rows must be committed.
@pytest.mark.django_db(transaction=True)
def test_a_dotted_name_is_indexed_listed_searched_and_reached_everywhere(
    telescope, client, capsys, django_user_model
):
    # The API lists it and searches it; its run is reached by its URL.
    listed = {row["name"] for row in client.get("/api/repos").json()}
    assert "telescope.nvim" in listed
    found = client.get("/api/search", {"repo": "telescope.nvim", "q": "retry http call"})
    assert found.status_code == 200
    assert found.json()["results"][0]["qualname"] == "retry_http_call"
    assert client.get("/api/repos/telescope.nvim/run").json()["status"] == "succeeded"
    # The page: the home page lists it, the search page searches it, its own URLs resolve.
    assert "telescope.nvim" in client.get("/").content.decode()
    page = client.get("/search/", {"repo": "telescope.nvim", "q": "retry http call"})
    assert page.status_code == 200 and "retry_http_call" in page.content.decode()
    progress = reverse("search:run_progress", args=["telescope.nvim"])
    assert progress == "/repos/telescope.nvim/progress/"
    assert client.get(progress).status_code == 200
    assert reverse("push_webhook", args=["github", "telescope.nvim"]).endswith(
        "/hooks/github/telescope.nvim"
    )
    # The CLI searches it by that name.
    call_command("search", "telescope.nvim", "retry http call", "--json", "--k", "1")
    assert json.loads(capsys.readouterr().out)[0]["repository"] == "telescope.nvim"
    # MCP: listed and searched by the same name.
    server = build_server(lambda ctx: None)

    async def over_mcp():
        listed = await server.call_tool("list_repositories", {})
        found = await server.call_tool(
            "search_code", {"repository": "telescope.nvim", "query": "retry http call", "k": 1}
        )
        return listed, found

    listed, found = asyncio.run(over_mcp())
    assert "telescope.nvim" in str(listed)
    assert "retry_http_call" in str(found)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["psf/requests", "my repo"])
def test_a_name_that_cannot_be_one_is_refused_in_the_cli_api_and_page(
    name, write_repo, client, django_user_model
):
    with pytest.raises(CommandError, match="letters, digits"):
        call_command("index_repo", str(write_repo(SAMPLE_FILES)), "--name", name)
    user = django_user_model.objects.create_user("dev", password="pw-123456789")
    token = api_token_create(user=user, name="t")[1]
    refused = client.post(
        "/api/repos",
        {"name": name, "git_url": "https://github.com/psf/requests"},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert refused.status_code == 400 and "letters, digits" in refused.json()["detail"]
    client.force_login(user)
    page = client.post("/repos/new/", {"name": name, "git_url": "https://github.com/a/b"})
    assert "letters, digits" in page.content.decode()
    assert not Repository.objects.filter(name=name).exists()
