"""Everything a page loads comes from the installation: no script, style, font or link to
another host, so the site (the API docs included) works with no internet."""

import re

import pytest

pytestmark = pytest.mark.django_db
OUTSIDE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//(?!testserver[/:"'])""", re.I)
# Inside a script or stylesheet: url(//…), import("https://…"), fetch of another host.
OUTSIDE_IN_CODE = re.compile(r"""(?:url\(|import\(|fetch\()\s*["']?(?:https?:)?//""", re.I)


def pages(client, shop, unit_id):
    return {
        "home": client.get("/"),
        "search": client.get("/search/", {"repo": "shop", "q": "retry failed http calls"}),
        "similar": client.get("/similar/", {"like": unit_id}),
        "api docs": client.get("/api/docs"),
        "login": client.get("/accounts/login/"),
        "new repository": client.get("/repos/new/", follow=True),
        "progress": client.get("/repos/shop/progress/"),
    }


def test_no_page_links_outside_the_site(client, shop):
    unit_id = shop.active_run.file_versions.first().units.first().pk
    for name, answer in pages(client, shop, unit_id).items():
        assert answer.status_code == 200, name
        html = answer.content.decode()
        found = OUTSIDE.findall(html) + OUTSIDE_IN_CODE.findall(html)
        assert not found, f"{name} links outside the site: {found}"


def test_api_docs_load_swagger_from_the_installation(client):
    html = client.get("/api/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html and "cdn" not in html.lower()


def test_the_favicon(client):
    assert 'rel="icon" href="/static/favicon.svg"' in client.get("/").content.decode()
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"] == "/static/favicon.svg"
