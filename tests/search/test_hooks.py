"""Push webhooks: signed deliveries for the indexed branch start one sync; nothing else does."""

import hashlib
import hmac
import json
import uuid

import pytest

from indexing.models import IndexRun, Repository
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.webhooks import WebhookRefused, parse, verify
from tests.conftest import git_commit_all

pytestmark = pytest.mark.django_db
SECRET = "s3cret-for-tests"


@pytest.fixture
def origin(git_origin):
    return git_origin


@pytest.fixture
def hooked(origin):
    repository = repository_create(name="shop", source=f"file://{origin}", ref="main")
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    Repository.objects.filter(pk=repository.pk).update(webhook_secret=SECRET)
    path = origin / "shop" / "text.py"
    path.write_text(path.read_text() + "\n\ndef shout(text):\n    return text.upper()\n")
    git_commit_all(origin, "shout")
    return repository


def github_delivery(client, body: dict, *, secret=SECRET, delivery=None, event="push"):
    raw = json.dumps(body).encode()
    signature = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    return client.post(
        "/hooks/github/shop",
        data=raw,
        content_type="application/json",
        headers={
            "X-Hub-Signature-256": signature,
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        },
    )


PUSH_MAIN = {"ref": "refs/heads/main", "after": "f" * 40, "repository": {"default_branch": "main"}}


def runs_of(repository) -> int:
    return IndexRun.objects.filter(repository=repository).count()


@pytest.mark.parametrize("secret", ["wrong", None])
def test_wrong_or_missing_signature_is_401_and_starts_nothing(
    client, hooked, secret, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        if secret is None:
            response = client.post(
                "/hooks/github/shop", data=PUSH_MAIN, content_type="application/json"
            )
        else:
            response = github_delivery(client, PUSH_MAIN, secret=secret)
    assert response.status_code == 401
    assert not callbacks and runs_of(hooked) == 1


def test_repository_without_secret_or_unknown_answers_401(client, hooked):
    Repository.objects.filter(pk=hooked.pk).update(webhook_secret="")
    assert github_delivery(client, PUSH_MAIN).status_code == 401
    raw = json.dumps(PUSH_MAIN).encode()
    assert (
        client.post("/hooks/github/nope", data=raw, content_type="application/json").status_code
        == 401
    )


def test_push_to_the_indexed_branch_starts_one_run_that_indexes_it(
    client, hooked, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = github_delivery(client, PUSH_MAIN)
    assert response.status_code == 202
    for callback in callbacks:  # the sync task, eager here
        callback()
    assert runs_of(hooked) == 2
    run = IndexRun.objects.filter(repository=hooked).order_by("-pk").first()
    run = index_run_execute(run=run)
    assert run.status == "succeeded", run.error
    assert active_units(repository=hooked).filter(qualname="shout").exists()


def test_two_deliveries_at_once_start_one_run(client, hooked, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert github_delivery(client, PUSH_MAIN).status_code == 202
        assert github_delivery(client, PUSH_MAIN).status_code == 202
    for callback in callbacks:
        callback()
    assert runs_of(hooked) == 2  # the first index and one more


def test_same_delivery_again_does_nothing_twice(client, hooked, django_capture_on_commit_callbacks):
    delivery = str(uuid.uuid4())
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert github_delivery(client, PUSH_MAIN, delivery=delivery).status_code == 202
        again = github_delivery(client, PUSH_MAIN, delivery=delivery)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert len(callbacks) == 1


def test_other_branch_and_ping_are_acknowledged_and_ignored(
    client, hooked, django_capture_on_commit_callbacks
):
    other = dict(PUSH_MAIN, ref="refs/heads/feature")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert github_delivery(client, other).json()["status"] == "ignored"
        assert github_delivery(client, {"zen": "hi"}, event="ping").json()["status"] == "ignored"
    assert not callbacks and runs_of(hooked) == 1


def test_gitlab_token_and_gitea_signature():
    body = json.dumps(PUSH_MAIN).encode()
    verify("gitlab", secret=SECRET, headers={"X-Gitlab-Token": SECRET}, body=body)
    with pytest.raises(WebhookRefused):
        verify("gitlab", secret=SECRET, headers={"X-Gitlab-Token": "x"}, body=body)
    signature = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    verify("gitea", secret=SECRET, headers={"X-Gitea-Signature": signature}, body=body)
    with pytest.raises(WebhookRefused):
        verify("gitea", secret=SECRET, headers={"X-Gitea-Signature": signature}, body=body + b" ")
    push = parse("gitlab", headers={"X-Gitlab-Event": "Push Hook"}, body=body)
    assert push.event == "push" and push.ref == "refs/heads/main"
    with pytest.raises(WebhookRefused) as refused:
        verify("bitbucket", secret=SECRET, headers={}, body=body)
    assert refused.value.status == 404


def test_owner_rotates_the_secret_and_sees_it_once(client, hooked, django_user_model):
    owner = django_user_model.objects.create_user("alice", password="pw")
    Repository.objects.filter(pk=hooked.pk).update(owner=owner)
    client.force_login(owner)
    response = client.post("/repos/shop/webhook/")
    assert response.status_code == 200
    hooked.refresh_from_db()
    assert hooked.webhook_secret and hooked.webhook_secret != SECRET
    assert hooked.webhook_secret in response.content.decode()
    assert hooked.webhook_secret not in client.get("/").content.decode()
    other = django_user_model.objects.create_user("bob", password="pw")
    client.force_login(other)
    assert client.post("/repos/shop/webhook/").status_code in (403, 404)


def test_api_and_home_say_when_the_remote_was_last_checked(client, hooked):
    from indexing.sync import repository_sync

    repository_sync(repository=hooked, trigger="test")
    listed = client.get("/api/repos").json()[0]
    assert listed["commit"] == hooked.active_run.commit_sha
    assert listed["last_checked_at"] and listed["sync_error"] == ""
    assert "checked" in client.get("/").content.decode()


def test_deliveries_are_rate_limited_like_the_api(client, hooked, settings):
    from django.core.cache import cache

    cache.clear()
    limits = {**settings.REPORIFT["LIMITS"], "SEARCH_RATE_PER_MINUTE": 2}
    settings.REPORIFT = {**settings.REPORIFT, "LIMITS": limits}
    try:
        answers = [
            github_delivery(client, PUSH_MAIN, secret="forged").status_code for _ in range(3)
        ]
        assert answers == [401, 401, 429]
    finally:
        cache.clear()
