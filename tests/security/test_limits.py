"""Every input limit answers with a clear error."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from indexing.git_urls import GitURLRefused, check_user_git_url
from indexing.models import Repository

pytestmark = pytest.mark.django_db


@pytest.fixture
def user_client(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("u", password="pw-123456789"))
    return client


@pytest.fixture
def strict_git(settings):
    settings.REPORIFT = {
        **settings.REPORIFT,
        "GIT_ALLOWED_SCHEMES": ["https"],
        "GIT_ALLOWED_HOSTS": [],
        "GIT_ALLOW_PRIVATE_HOSTS": False,
    }


@pytest.mark.parametrize(
    "url, message",
    [
        ("file:///etc", "must use https"),
        ("ssh://git@example.com/x.git", "must use https"),
        ("http://example.com/x.git", "must use https"),
        ("https://127.0.0.1/x.git", "private or loopback"),
        ("https://localhost/x.git", "private or loopback"),
        ("https://10.1.2.3/x.git", "private or loopback"),
        ("https://[::1]/x.git", "private or loopback"),
        ("https:///x.git", "no host"),
    ],
)
def test_git_urls_refused(strict_git, url, message):
    with pytest.raises(GitURLRefused, match=message):
        check_user_git_url(url)


def test_git_host_allow_list(settings, strict_git):
    settings.REPORIFT = {**settings.REPORIFT, "GIT_ALLOWED_HOSTS": ["github.com"]}
    with pytest.raises(GitURLRefused, match="not in the allowed list"):
        check_user_git_url("https://gitlab.com/x/y.git")


def test_git_url_refused_in_form_and_api(strict_git, user_client):
    page = user_client.post("/repos/new/", {"name": "x", "git_url": "file:///etc"})
    assert "must use https" in page.content.decode()
    api = user_client.post("/api/repos", {"name": "y", "git_url": "https://127.0.0.1/r.git"})
    assert api.status_code == 400 and "loopback" in api.json()["detail"]
    assert not Repository.objects.exists()


def test_upload_size_limit(settings, user_client):
    settings.REPORIFT = {**settings.REPORIFT, "MAX_UPLOAD_BYTES": 100}
    response = user_client.post(
        "/repos/new/", {"name": "big", "archive": SimpleUploadedFile("a.zip", b"x" * 500)}
    )
    assert "the limit is 100" in response.content.decode()
    assert not Repository.objects.exists()


def test_query_and_k_limits(shop):
    client = Client()
    long_query = client.get("/api/search", {"repo": "shop", "q": "x" * 1001})
    assert long_query.status_code == 400 and "longer than 1000" in long_query.json()["detail"]
    big_k = client.get("/api/search", {"repo": "shop", "q": "x", "k": 101})
    assert big_k.status_code == 400 and "k must be between 1 and 100" in big_k.json()["detail"]


def test_search_rate_limit_per_user(settings, shop, django_user_model):
    from django.core.cache import cache

    cache.clear()
    settings.REPORIFT = {**settings.REPORIFT, "SEARCH_RATE_PER_MINUTE": 3}
    alice, bob = Client(), Client()
    alice.force_login(django_user_model.objects.create_user("alice", password="pw-123456789"))
    bob.force_login(django_user_model.objects.create_user("bob", password="pw-123456789"))
    codes = [alice.get("/api/search", {"repo": "shop", "q": "retry"}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert bob.get("/api/search", {"repo": "shop", "q": "retry"}).status_code == 200
    cache.clear()
