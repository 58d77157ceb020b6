"""Code to code on the page and in the API: pasted snippets, "similar code" on each result."""

import re

import pytest

from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES
from tests.search.test_similar import RENAMED_RETRY

pytestmark = pytest.mark.django_db


def test_every_result_links_to_code_like_it(client, shop):
    page = client.get("/search/", {"repo": "shop", "q": "turn a title into a slug"}).content
    links = re.findall(r'href="/similar/\?like=(\d+)&amp;repo=shop"', page.decode())
    assert links
    slugify = active_units(repository=shop).get(qualname="slugify_title")
    assert str(slugify.pk) in links
    like = client.get("/similar/", {"like": slugify.pk, "repo": "shop"})
    assert like.status_code == 200
    text = like.content.decode()
    assert "code like slugify_title (shop/text.py:" in text
    assert 'data-qualname="slugify_title"' not in text  # never the unit itself
    assert "alike by code vector" in text


def test_a_pasted_snippet_is_posted_and_found(client, shop):
    home = client.get("/search/", {"q": "x"}).content.decode()
    assert 'id="similar-form"' in home and 'name="csrfmiddlewaretoken"' in home
    page = client.post("/similar/", {"code": RENAMED_RETRY, "repo": "shop"}).content.decode()
    assert page.index('data-qualname="retry_http_call"') < page.index('data-qualname="') + 200
    assert "code like: def call_again(fn, tries=3, pause=0.5):" in page


def test_bad_requests_keep_the_page(client, shop, write_repo):
    empty = client.post("/similar/", {"code": "  "})
    assert empty.status_code == 400 and "paste some code" in empty.content.decode()
    hidden = repository_create(name="hidden", source=str(write_repo(SAMPLE_FILES)), is_public=False)
    index_run_execute(run=index_run_start(repository=hidden, enqueue=False))
    secret = active_units(repository=hidden).first()
    refused = client.get("/similar/", {"like": secret.pk})
    assert refused.status_code == 400
    assert (
        f"no indexed unit {secret.pk} in the repositories you can search"
        in refused.content.decode()
    )


def test_api_finds_code_like_a_snippet_or_a_unit(client, shop):
    found = client.get("/api/search", {"repo": "shop", "q": "slugify"}).json()["results"][0]
    assert found["qualname"] == "slugify_title" and found["unit_id"] > 0
    posted = client.post(
        "/api/similar", {"code": RENAMED_RETRY, "repo": ["shop"]}, content_type="application/json"
    )
    assert posted.status_code == 200, posted.content
    answer = posted.json()
    assert answer["mode"] == "similar" and answer["results"][0]["qualname"] == "retry_http_call"
    like = client.get("/api/similar", {"unit": found["unit_id"], "with_code": True}).json()
    assert found["unit_id"] not in [r["unit_id"] for r in like["results"]]
    assert all(r["code"] for r in like["results"])
    short = client.get("/api/similar", {"code": "return '-'.join(title.lower().split())"}).json()
    assert short["results"][0]["qualname"] == "slugify_title"
    assert client.get("/api/similar", {"code": ""}).status_code == 400
    assert client.get("/api/similar", {"unit": 10**9}).status_code == 400


def test_unrelated_code_is_called_no_close_match(client, shop):
    unrelated = (
        "def matmul(a, b):\n    n, m, p = len(a), len(b), len(b[0])\n"
        "    return [[sum(a[i][k] * b[k][j] for k in range(m)) for j in range(p)]"
        " for i in range(n)]\n"
    )
    page = client.post("/similar/", {"code": unrelated, "repo": "shop"}).content.decode()
    assert "no close match: the most alike code scores" in page
    close = client.post("/similar/", {"code": RENAMED_RETRY, "repo": "shop"}).content.decode()
    assert "no close match" not in close
    answer = client.get("/api/similar", {"code": unrelated, "repo": "shop"}).json()
    assert answer["notices"][0].startswith("no close match")
