"""API tokens a user controls: listed, revoked, expiring; admins see and revoke them too. A
revoked or expired token gets 401 from the API."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import api_token_create, api_token_revoke, user_for_api_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-123456789")


def bearer(key: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


def test_revoked_and_expired_tokens_are_refused(alice, shop):
    live, live_key = api_token_create(user=alice, name="live")
    revoked, revoked_key = api_token_create(user=alice, name="old")
    expired, expired_key = api_token_create(
        user=alice, name="short", expires_at=timezone.now() - timedelta(seconds=1)
    )
    api_token_revoke(token=revoked)
    client = Client()
    assert client.get("/api/repos", **bearer(live_key)).status_code == 200
    for key in (revoked_key, expired_key):
        assert client.get("/api/repos", **bearer(key)).status_code == 401
        searched = client.get("/api/search", {"repo": "shop", "q": "x"}, **bearer(key))
        assert searched.status_code == 401
    assert user_for_api_token(live_key) == alice
    assert user_for_api_token(revoked_key) is None and user_for_api_token(expired_key) is None
    assert [t.state for t in (live, revoked, expired)] == ["active", "revoked", "expired"]


def test_account_page_lists_and_revokes_own_tokens_only(alice, django_user_model):
    token, key = api_token_create(user=alice, name="laptop")
    bob = django_user_model.objects.create_user("bob", password="pw-123456789")
    bobs, _ = api_token_create(user=bob, name="bobs")
    client = Client()
    client.force_login(alice)
    page = client.get("/account/tokens/").content.decode()
    assert "laptop" in page and token.prefix in page and "bobs" not in page
    assert client.post(f"/account/tokens/{bobs.pk}/revoke/").status_code == 404
    bobs.refresh_from_db()
    assert bobs.revoked_at is None
    response = client.post(f"/account/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.state == "revoked" and user_for_api_token(key) is None
    assert "revoked" in client.get("/account/tokens/").content.decode()


def test_tokens_may_expire(alice):
    client = Client()
    client.force_login(alice)
    client.post("/account/tokens/", {"name": "ci", "expires_in_days": "30"})
    token = ApiToken.objects.get(name="ci")
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)


def test_admin_lists_and_revokes_tokens(alice, admin_client):
    token, key = api_token_create(user=alice, name="laptop")
    listing = admin_client.get("/admin/accounts/apitoken/").content.decode()
    assert "laptop" in listing and "alice" in listing
    admin_client.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert user_for_api_token(key) is None
