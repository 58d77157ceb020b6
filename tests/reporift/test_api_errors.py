"""Every failure under /api/ answers JSON."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_unknown_endpoint_and_method_answer_json(client):
    missing = client.get("/api/no-such-thing")
    assert missing.status_code == 404 and "no such API endpoint" in missing.json()["detail"]
    wrong = client.put("/api/search")
    assert wrong.status_code == 405 and "does not take PUT" in wrong.json()["detail"]
    assert "GET" in wrong["Allow"]
    # Outside the API the site's own pages answer as before.
    assert "application/json" not in client.get("/no-such-page/").get("Content-Type", "")


def test_a_crash_answers_json(monkeypatch):
    import search.api

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(search.api, "with_latest_runs", crash)
    answer = Client(raise_request_exception=False).get("/api/repos")
    assert answer.status_code == 500
    assert answer.json() == {"detail": "the server failed to answer; the error was logged"}


def test_wrong_type_is_a_400_sentence(client):
    answer = client.get("/api/search", {"q": "x", "k": "many"})
    assert answer.status_code == 400 and "k" in answer.json()["detail"]
