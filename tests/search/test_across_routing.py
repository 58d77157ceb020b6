"""A question over many repositories: one pass over their vectors picks those ranked in full."""

import uuid

import pytest

from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.store import get_vector_store
from search.across import search_across
from search.across_routing import route
from search.answer import meaning_search

TREES = {
    "geometry": {
        "geo/shapes.py": '''
import math


def circle_area(radius):
    """Area of a circle of the given radius."""
    return math.pi * radius ** 2
''',
    },
    "weather": {
        "forecast/rain.py": '''
def rain_probability(humidity, pressure):
    """Chance of rain tomorrow from the humidity and the air pressure."""
    return min(1.0, humidity / 100 * (1013 / pressure))
''',
    },
    "music": {
        "notes/scale.py": '''
NOTES = ["C", "D", "E", "F", "G", "A", "B"]


def major_scale(root):
    """The seven notes of the major scale that starts on `root`."""
    start = NOTES.index(root)
    return [NOTES[(start + step) % 7] for step in range(7)]
''',
    },
}


def indexed(write_repo, name, files, **kwargs):
    repository = repository_create(name=name, source=str(write_repo(files)), **kwargs)
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    return repository


@pytest.fixture
def four(db, shop, write_repo):
    return [shop, *(indexed(write_repo, name, files) for name, files in TREES.items())]


def across(settings, **changes) -> None:
    search = settings.REPORIFT["SEARCH"]
    settings.REPORIFT = {
        **settings.REPORIFT,
        "SEARCH": {**search, "ACROSS": {**search["ACROSS"], **changes}},
    }


@pytest.fixture
def rank_one(settings):
    across(settings, REPOSITORIES=1)


def test_the_pass_ranks_the_repository_that_holds_the_answer_first(four):
    for question, expected in [
        ("area of a circle", "geometry"),
        ("chance of rain from humidity", "weather"),
        ("notes of a major scale", "music"),
        ("charge a credit card", "shop"),
    ]:
        chosen = route(repositories=four, query=question).chosen(1, 3)
        assert [r.name for r in chosen] == [expected], question


def test_the_second_repository_pays_its_shortfall_of_evidence(four):
    (first, lead), (second, shortfall) = route(
        repositories=four, query="area of a circle"
    ).shortfalls(2, 3)
    assert first.name == "geometry" and lead == 0.0
    assert second.name != "geometry" and shortfall < 0.0
    # Two ranked in one order: the likeliest repository's answer first, the other's below.
    response = search_across(repositories=four, query="area of a circle", k=5)
    assert response.timings_ms["ranked_repositories"] == 2
    assert response.results[0].unit.qualname == "circle_area"
    assert {r.repository for r in response.results} == {"geometry", second.name}


def test_only_the_picked_repositories_are_ranked(four, rank_one):
    response = search_across(repositories=four, query="notes of a major scale", k=5)
    assert {r.repository for r in response.results} == {"music"}
    assert response.results[0].unit.qualname == "major_scale"
    assert response.timings_ms["repositories"] == 4
    assert response.timings_ms["ranked_repositories"] == 1
    assert response.timings_ms["route"] > 0


def test_a_typed_name_goes_to_the_repository_that_defines_it(four, rank_one):
    response = search_across(repositories=four, query="rain_probability", k=3)
    assert response.results[0].repository == "weather"
    assert response.results[0].unit.qualname == "rain_probability"


def test_a_repository_without_an_index_is_named_not_searched(four, rank_one):
    waiting = repository_create(name="waiting", source=str(four[1].source))
    response = search_across(repositories=[*four, waiting], query="area of a circle", k=3)
    assert response.results[0].repository == "geometry"
    assert any("waiting" in notice and "no finished index" in notice for notice in response.notices)


def test_exact_text_and_issues_are_searched_in_every_repository(four, rank_one):
    assert meaning_search('"circle_area"') is None
    assert meaning_search("Traceback (most recent call last):\n  File x\nValueError: y") is None
    assert meaning_search("lang:go") is None  # qualifiers alone: refused by each search
    words, filters = meaning_search("lang:python area of a circle")
    assert (words, filters.languages) == ("area of a circle", ("python",))
    response = search_across(repositories=four, query='"major scale"', k=10)
    assert {r.repository for r in response.results} == {"music"}
    assert response.timings_ms["repositories"] == 4
    assert "ranked_repositories" not in response.timings_ms


def test_the_routed_search_keeps_its_filters(four, rank_one):
    response = search_across(repositories=four, query="path:notes/ notes of a scale", k=3)
    assert response.results and all(r.unit.path.startswith("notes/") for r in response.results)


def test_a_private_repository_of_another_user_is_never_scanned(
    client, four, write_repo, django_user_model, rank_one
):
    owner = django_user_model.objects.create_user("vault-owner", password="pw")
    vault = {
        "vault/solids.py": '''
import math


def sphere_volume(radius):
    """Volume of a sphere of the given radius."""
    return 4 / 3 * math.pi * radius ** 3
''',
    }
    indexed(write_repo, "vault", vault, owner=owner, is_public=False)
    question = {"q": "volume of a sphere"}
    every = client.get("/api/search", question).json()
    assert "vault" not in str(every) and "sphere_volume" not in str(every)
    assert every["timings_ms"]["repositories"] == 4
    client.force_login(owner)
    mine = client.get("/api/search", question).json()
    assert mine["timings_ms"]["repositories"] == 5
    assert (mine["results"][0]["repository"], mine["results"][0]["qualname"]) == (
        "vault",
        "sphere_volume",
    )


@pytest.mark.slow
def test_the_same_search_on_a_server_deployment(db, settings, write_repo, chroma_server):
    """Both vector stores on a Chroma server, as when CHROMA_HOST is set (the database is
    PostgreSQL when this runs among the PostgreSQL tests): the pass asks the server."""
    settings.REPORIFT = {
        **settings.REPORIFT,
        "VECTOR_STORE": {
            "CLASS": "indexing.store.ChromaVectorStore",
            "OPTIONS": {
                "host": "127.0.0.1",
                "port": chroma_server,
                "collection_prefix": f"r{uuid.uuid4().hex[:8]}",
            },
        },
        "STATIC_VECTOR_STORE": None,
    }
    across(settings, REPOSITORIES=1)
    get_vector_store.cache_clear()
    try:
        repositories = [indexed(write_repo, name, files) for name, files in TREES.items()]
        response = search_across(repositories=repositories, query="chance of rain", k=3)
        assert response.results[0].unit.qualname == "rain_probability"
        assert response.timings_ms["ranked_repositories"] == 1
    finally:
        get_vector_store.cache_clear()
