"""Every endpoint as an anonymous caller, as another user and as the owner."""

import pytest
from django.test import Client

from accounts.services import api_token_create
from indexing.models import Repository
from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="pw-123456789")
        for name in ("owner", "other")
    }


def indexed(name, owner, root, *, public):
    repository = repository_create(name=name, source=str(root), owner=owner, is_public=public)
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    return repository


@pytest.fixture
def private_repo(users, write_repo):
    return indexed("secret", users["owner"], write_repo(SAMPLE_FILES), public=False)


@pytest.fixture
def public_repo(users, write_repo):
    return indexed("open", users["owner"], write_repo(SAMPLE_FILES), public=True)


def as_user(user):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["anonymous", "other"])
def test_private_repository_is_invisible(who, users, private_repo, public_repo):
    client = as_user(users.get(who))
    home = client.get("/").content.decode()
    assert "open" in home and "secret" not in home
    page = client.get("/search/", {"repo": "secret", "q": "retry"}).content.decode()
    assert "retry_http_call" not in page
    assert client.get("/repos/secret/progress/").status_code == 404
    assert client.get("/api/search", {"repo": "secret", "q": "retry"}).status_code == 404
    assert client.get("/api/repos/secret/run").status_code == 404
    names = [r["name"] for r in client.get("/api/repos").json()]
    assert "open" in names and "secret" not in names
    assert client.get("/api/search", {"repo": "open", "q": "retry"}).status_code == 200


def test_owner_sees_private_by_session_and_token(users, private_repo):
    owner = as_user(users["owner"])
    assert owner.get("/api/search", {"repo": "secret", "q": "retry"}).status_code == 200
    assert "secret" in owner.get("/").content.decode()
    _, key = api_token_create(user=users["owner"], name="t")
    with_token = Client(headers={"Authorization": f"Bearer {key}"})
    body = with_token.get("/api/search", {"repo": "secret", "q": "retry failed http"}).json()
    assert body["results"][0]["qualname"] == "retry_http_call"
    bad = Client(headers={"Authorization": "Bearer rr_not-a-token"})
    assert bad.get("/api/search", {"repo": "open", "q": "x"}).status_code == 401


def test_writes_need_login(private_repo, public_repo):
    anonymous = Client()
    for url in ("/repos/new/", "/account/tokens/"):
        assert anonymous.get(url).status_code == 302
    for url in ("/repos/open/reindex/", "/repos/open/delete/"):
        assert anonymous.post(url).status_code == 302
    assert (
        anonymous.post("/api/repos", {"name": "x", "git_url": "https://e.org/r"}).status_code == 401
    )
    assert anonymous.delete("/api/repos/open").status_code == 401
    assert anonymous.post("/api/repos/open/reindex").status_code == 401
    assert Repository.objects.filter(name="open").exists()


def test_other_user_cannot_manage(users, private_repo, public_repo):
    other = as_user(users["other"])
    assert other.post("/repos/open/delete/").status_code == 403
    assert other.post("/repos/open/reindex/").status_code == 403
    assert other.post("/repos/secret/delete/").status_code == 404
    assert other.delete("/api/repos/open").status_code == 403
    assert other.delete("/api/repos/secret").status_code == 404
    assert other.post("/api/repos/open/reindex").status_code == 403
    assert Repository.objects.filter(name__in=["open", "secret"]).count() == 2


def test_owner_can_manage(users, public_repo, django_capture_on_commit_callbacks):
    owner = as_user(users["owner"])
    with django_capture_on_commit_callbacks(execute=True):
        assert owner.post("/repos/open/reindex/").status_code == 302
    assert public_repo.runs.count() == 2
    _, key = api_token_create(user=users["owner"], name="t")
    token_client = Client(headers={"Authorization": f"Bearer {key}"})
    assert token_client.delete("/api/repos/open").status_code == 204
    assert not Repository.objects.filter(name="open").exists()


def test_admin_is_staff_only(users):
    response = as_user(users["other"]).get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_forms_need_csrf(users, public_repo):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["owner"])
    assert client.post("/repos/open/delete/").status_code == 403
    assert client.post("/account/tokens/", {"name": "x"}).status_code == 403
    # Session authentication without the CSRF token is refused.
    assert client.post("/api/repos", {"name": "x", "git_url": "https://e.org/r"}).status_code == 403
    assert Repository.objects.filter(name="open").exists()


def test_token_page_shows_the_key_once(users):
    owner = as_user(users["owner"])
    page = owner.post("/account/tokens/", {"name": "laptop"}).content.decode()
    key = page.split('id="new-token">')[1].split("<")[0]
    assert key.startswith("rr_") and len(key) > 30
    later = owner.get("/account/tokens/").content.decode()
    assert key not in later and key[:8] in later  # only the prefix is ever shown again
    token = users["owner"].api_tokens.get()
    assert token.name == "laptop" and key not in token.key_hash


def test_a_failed_first_index_is_its_owners_alone(users, write_repo, public_repo):
    nope = repository_create(
        name="nope", source=str(write_repo({})) + "/no-such-dir", owner=users["owner"]
    )
    run = index_run_execute(run=index_run_start(repository=nope, enqueue=False))
    assert run.status == "failed" and nope.is_public
    for who in ("anonymous", "other"):
        client = as_user(users.get(who))
        assert ">nope<" not in client.get("/").content.decode()
        assert "nope" not in [r["name"] for r in client.get("/api/repos").json()]
        assert client.get("/api/search", {"repo": "nope", "q": "x"}).status_code == 404
    owner = as_user(users["owner"]).get("/").content.decode()
    assert ">nope<" in owner and "not a directory" in owner and ">retry</button>" in owner


def test_a_folder_path_is_shown_to_its_owner_and_staff_alone(users, public_repo, admin_client):
    folder = public_repo.source
    for who in ("anonymous", "other"):
        home = as_user(users.get(who)).get("/").content.decode()
        assert folder[:40] not in home and "local directory" in home
    assert folder[:40] in as_user(users["owner"]).get("/").content.decode()
    assert folder[:40] in admin_client.get("/").content.decode()
