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
    # A query may be a whole issue, up to 32,000 characters (POSTed), and no longer.
    long_query = client.post(
        "/api/search", {"repo": ["shop"], "q": "x" * 32_001}, content_type="application/json"
    )
    assert long_query.status_code == 400
    assert "longer than 32,000 characters" in long_query.json()["detail"]
    big_k = client.get("/api/search", {"repo": "shop", "q": "x", "k": 101})
    assert big_k.status_code == 400 and "k must be between 1 and 100" in big_k.json()["detail"]


def test_search_rate_limit_per_user(settings, shop, django_user_model):
    from django.core.cache import cache

    cache.clear()
    settings.REPORIFT = {
        **settings.REPORIFT,
        "LIMITS": {**settings.REPORIFT["LIMITS"], "SEARCH_RATE_PER_MINUTE": 3},
    }
    alice, bob = Client(), Client()
    alice.force_login(django_user_model.objects.create_user("alice", password="pw-123456789"))
    bob.force_login(django_user_model.objects.create_user("bob", password="pw-123456789"))
    codes = [alice.get("/api/search", {"repo": "shop", "q": "retry"}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert bob.get("/api/search", {"repo": "shop", "q": "retry"}).status_code == 200
    cache.clear()


@pytest.fixture
def redirecting_git_host():
    """Two loopback HTTP servers: the first answers every request with a redirect to the second
    (standing in for a private address); the second records whether anyone reached it."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    reached: list[str] = []

    class Target(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            reached.append(self.path)
            self.send_response(404)
            self.end_headers()

    target = ThreadingHTTPServer(("127.0.0.1", 0), Target)

    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{target.server_port}{self.path}")
            self.end_headers()

    front = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    for server in (target, front):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{front.server_port}/repo.git", reached
    for server in (target, front):
        server.shutdown()
        server.server_close()


def test_user_clone_never_follows_a_redirect(tmp_path, settings, redirecting_git_host):
    from indexing.sources import GitSource, SourceError

    url, reached = redirecting_git_host
    # Let the first hop through the URL check, as a public host would pass it.
    settings.REPORIFT = {
        **settings.REPORIFT,
        "GIT_ALLOWED_SCHEMES": ["http"],
        "GIT_ALLOW_PRIVATE_HOSTS": True,
    }
    with pytest.raises(SourceError, match="redirect"):
        GitSource(url=url, user_submitted=True).fetch(tmp_path / "w1")
    assert reached == []  # the redirect's target was never contacted
    # The operator's own clones keep git's default (the first request may be redirected).
    with pytest.raises(SourceError):
        GitSource(url=url).fetch(tmp_path / "w2")
    assert reached and reached[0].startswith("/repo.git/info/refs")


def test_user_git_url_is_checked_again_on_every_run(db, django_user_model):
    from indexing.services import index_run_execute, index_run_start, repository_create

    owner = django_user_model.objects.create_user("mallory", password="x")
    # Stored earlier, when the host still resolved to a public address; now it points home.
    repository = repository_create(
        name="turned-private", source="https://127.0.0.1/repo.git", owner=owner
    )
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "failed"
    assert "private or loopback address" in run.error
