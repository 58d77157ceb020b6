"""The JSON API as a newcomer meets it: one check of parameters (the page's and MCP's words),
close names for a misspelled repository, honest run states."""

import asyncio

import pytest

from indexing.services import index_run_execute, index_run_start, repository_create

pytestmark = pytest.mark.django_db


def test_bad_kind_is_a_400_with_the_words_mcp_uses(client, shop):
    from search.mcp_server import build_server

    answer = client.get("/api/search", {"repo": "shop", "q": "charge", "kind": "banana"})
    assert answer.status_code == 400
    message = answer.json()["detail"]
    assert message.startswith("kind must be one of function, method, class")
    server = build_server(lambda ctx: None)
    with pytest.raises(Exception, match="kind must be one of function, method, class"):
        asyncio.run(
            server.call_tool(
                "search_code", {"query": "charge", "repository": "shop", "kinds": ["banana"]}
            )
        )


def test_long_query_is_the_applications_json_error(client, shop):
    # Past the issue limit (a whole issue may be searched, POSTed: tests/search/test_locate.py).
    answer = client.get("/api/search", {"repo": "shop", "q": "y" * 5000})
    assert answer.status_code == 200 and answer.json()["notices"][0].startswith("read as an issue")
    answer = client.post(
        "/api/search", {"repo": ["shop"], "q": "y" * 32_001}, content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith(
        "the query is longer than 32,000 characters (it has 32,001)"
    )


def test_misspelled_repository_gets_a_suggestion(client, shop):
    answer = client.get("/api/search", {"repo": "shopp", "q": "charge"})
    assert answer.status_code == 404
    assert answer.json()["detail"] == "no repository named 'shopp'; did you mean 'shop'?"
    page = client.get("/search/", {"repo": "shopp", "q": "charge"}).content.decode()
    assert "did you mean &#x27;shop&#x27;?" in page


def test_a_run_that_made_no_index_answers_from_no_phase(client, shop, write_repo, admin_client):
    broken = repository_create(name="broken", source=str(write_repo({})) + "/missing")
    run = index_run_execute(run=index_run_start(repository=broken, enqueue=False))
    assert run.status == "failed"
    rows = {r["name"]: r for r in admin_client.get("/api/repos").json()}
    assert rows["broken"]["latest_run"]["answering_phase"] == 0
    assert not rows["broken"]["searchable"]
    assert rows["shop"]["latest_run"]["answering_phase"] in (1, 2) and rows["shop"]["searchable"]


def test_a_tree_with_nothing_to_read_says_so(client, write_repo):
    empty = repository_create(name="blobs", source=str(write_repo({"data/blob.bin": "\x00\x01"})))
    run = index_run_execute(run=index_run_start(repository=empty, enqueue=False))
    assert run.status == "succeeded" and run.units_total == 0
    status = client.get("/api/repos/blobs/run").json()
    assert status["notice"] == "no files RepoRift can read"
    home = client.get("/").content.decode()
    assert "indexed: no files RepoRift can read" in home
    answer = client.get("/api/search", {"repo": "blobs", "q": "anything"})
    assert answer.status_code == 200, answer.content
    assert "blobs has no files RepoRift can read" in answer.json()["notices"]
    page = client.get("/search/", {"repo": "blobs", "q": "anything"}).content.decode()
    assert "blobs has no files RepoRift can read" in page and "Nothing matched" not in page
