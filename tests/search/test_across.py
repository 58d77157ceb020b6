"""One query over several repositories: merged by a comparable score, labelled, order kept."""

from types import SimpleNamespace

import pytest

from indexing.services import index_run_execute, index_run_start, repository_create
from search.across import merge, search_across
from search.results import SearchError, SearchResult

GEOMETRY = {
    "geo/shapes.py": '''
import math


def circle_area(radius):
    """Area of a circle of the given radius."""
    return math.pi * radius ** 2


def rectangle_perimeter(width, height):
    """Perimeter of a rectangle."""
    return 2 * (width + height)
''',
}


@pytest.fixture
def geometry(db, write_repo):
    repository = repository_create(name="geometry", source=str(write_repo(GEOMETRY)))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    return repository


def result(repository: str, comparable: float, name: str) -> SearchResult:
    unit = SimpleNamespace(qualname=name)
    return SearchResult(0, unit, comparable, {}, comparable=comparable, repository=repository)


def test_merge_orders_by_comparable_score_and_keeps_each_repository_order():
    a = [result("a", 2.0, "a1"), result("a", 3.0, "a2"), result("a", 0.5, "a3")]
    b = [result("b", 2.5, "b1"), result("b", 1.0, "b2")]
    merged = merge([a, b], k=4)
    assert [r.unit.qualname for r in merged] == ["b1", "a1", "a2", "b2"]
    assert [r.rank for r in merged] == [1, 2, 3, 4]


def test_a_repository_the_route_finds_less_likely_pays_its_shortfall():
    a = [result("a", 1.0, "a1"), result("a", 0.9, "a2"), result("a", 0.8, "a3")]
    b = [result("b", 2.5, "b1"), result("b", 0.95, "b2")]
    # Close evidence: b's far better unit comes first, the rest mix on their scores.
    close = merge([a, b], k=5, handicaps=[0.0, -0.5])
    assert [r.unit.qualname for r in close] == ["b1", "a1", "a2", "a3", "b2"]
    # Distant evidence: every unit of a comes before b's best.
    distant = merge([a, b], k=5, handicaps=[0.0, -2.0])
    assert [r.unit.qualname for r in distant] == ["a1", "a2", "a3", "b1", "b2"]
    assert [r.rank for r in distant] == [1, 2, 3, 4, 5]


def test_two_repositories_one_answer(shop, geometry):
    response = search_across(repositories=[shop, geometry], query="area of a circle", k=6)
    first = response.results[0]
    assert first.repository == "geometry" and first.unit.qualname == "circle_area"
    assert {r.repository for r in response.results} == {"shop", "geometry"}
    payments = search_across(repositories=[shop, geometry], query="charge a credit card", k=6)
    assert payments.results[0].repository == "shop"
    with pytest.raises(SearchError, match="one repository at a time"):
        search_across(repositories=[shop, geometry], query="x", mode="full")


def test_api_searches_repeated_or_all_repositories(client, shop, geometry):
    both = client.get("/api/search", {"repo": ["shop", "geometry"], "q": "area of a circle"})
    assert both.status_code == 200
    results = both.json()["results"]
    assert results[0]["repository"] == "geometry"
    assert {r["repository"] for r in results} == {"shop", "geometry"}
    every = client.get("/api/search", {"q": "charge a credit card"}).json()["results"]
    assert every[0]["repository"] == "shop" and every[0]["qualname"] == "PaymentGateway.charge"
    assert client.get("/api/search", {"repo": ["shop", "nope"], "q": "x"}).status_code == 404


def test_page_searches_every_repository_by_default(client, shop, geometry):
    page = client.get("/search/", {"q": "area of a circle"}).content.decode()
    assert '<span class="repository">geometry</span>' in page
    assert "all repositories" in page


VAULT = {
    "vault/solids.py": '''
import math


def sphere_volume(radius):
    """Volume of a sphere of the given radius."""
    return 4 / 3 * math.pi * radius ** 3
''',
}


def test_another_users_private_repository_never_shows_across_repositories(
    client, shop, geometry, write_repo, django_user_model
):
    owner = django_user_model.objects.create_user("vault-owner", password="pw")
    vault = repository_create(
        name="vault", source=str(write_repo(VAULT)), owner=owner, is_public=False
    )
    run = index_run_execute(run=index_run_start(repository=vault, enqueue=False))
    assert run.status == "succeeded", run.error
    question = {"q": "volume of a sphere"}
    # Anyone else, every repository: the answer is in the vault, and nothing of it shows, not
    # even as a count: the response is the one the two visible repositories give.
    every = client.get("/api/search", question).json()
    visible = client.get("/api/search", {"repo": ["shop", "geometry"], **question}).json()
    assert "vault" not in str(every) and "sphere_volume" not in str(every)
    assert every["timings_ms"]["repositories"] == 2
    assert [r["unit_id"] for r in every["results"]] == [r["unit_id"] for r in visible["results"]]
    assert every["notices"] == visible["notices"]
    assert client.get("/api/search", {"repo": ["vault"], **question}).status_code == 404
    # Its owner searches everything and finds the answer first, in the one repository it is in.
    client.force_login(owner)
    mine = client.get("/api/search", question).json()
    assert mine["timings_ms"]["repositories"] == 3
    assert (mine["results"][0]["repository"], mine["results"][0]["qualname"]) == (
        "vault",
        "sphere_volume",
    )
