"""Searches are limited per caller on the page and the API alike; full mode, which reaches the
operator's LLM, has its own smaller limits; behind a trusted proxy callers are told apart."""

import re
import time
from types import SimpleNamespace

import django_ratelimit.core
import pytest
from django.core.cache import cache
from django.test import Client

from agents.llm import get_llm_client
from agents.models import LLMCall
from search.ratelimit import client_address
from tests.agents.conftest import fake_llm, use_fake_llm  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counters(monkeypatch):
    cache.clear()
    # The counters live in clock-aligned windows: a test whose searches straddled the turn of a
    # minute saw its counts start again (the fourth full-mode search admitted). Each test runs
    # inside one window of django-ratelimit's own clock.
    frozen = time.time()
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: frozen))
    yield
    cache.clear()


def limits(settings, **values):
    settings.REPORIFT = {**settings.REPORIFT, "LIMITS": {**settings.REPORIFT["LIMITS"], **values}}


@pytest.fixture
def paid_llm(settings, fake_llm):  # noqa: F811
    """Full mode against an OpenAI-compatible endpoint with every stage on."""
    use_fake_llm(settings, fake_llm, model="paid-model", timeout_s=5, AUGMENTER="prompt")
    fake_llm.answer(
        "Code that retries.", "```python\ndef retry():\n    pass\n```", '{"ranking": []}'
    )
    get_llm_client.cache_clear()
    yield fake_llm
    get_llm_client.cache_clear()


def finish(client, page) -> None:
    """Full mode on the page runs in the background: wait for the job the page started."""
    job = re.search(r'hx-get="(/search/jobs/[0-9a-f]+/)"', page.content.decode())
    deadline = time.monotonic() + 30
    while job and time.monotonic() < deadline:
        if "hx-get" not in client.get(job.group(1)).content.decode():
            return
        time.sleep(0.1)


@pytest.mark.django_db(transaction=True)
def test_anonymous_full_mode_on_the_page_is_refused_before_the_llm(shop, settings, paid_llm):
    limits(settings, FULL_RATE_PER_MINUTE=3)
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": True}  # the limits' turn
    client = Client()
    codes = []
    for i in range(8):
        page = client.get("/search/", {"repo": "shop", "q": f"retry call {i}", "mode": "full"})
        codes.append(page.status_code)
        finish(client, page)
    assert codes == [200] * 3 + [429] * 5
    # Every query was new (nothing cached), so each admitted search asked the LLM once to
    # augment its query, and the refused ones never did.
    assert LLMCall.objects.filter(purpose="augment").count() == 3
    refused = client.get("/search/", {"repo": "shop", "q": "retry call x", "mode": "full"})
    assert "too many full-mode searches" in refused.content.decode()
    assert refused["Retry-After"] == "60"
    # Fast mode is still served: it has its own, larger allowance.
    assert client.get("/search/", {"repo": "shop", "q": "retry", "mode": "fast"}).status_code == 200


def test_api_and_page_share_one_allowance(shop, settings):
    limits(settings, SEARCH_RATE_PER_MINUTE=2)
    client = Client()
    assert client.get("/search/", {"repo": "shop", "q": "retry"}).status_code == 200
    assert client.get("/api/search", {"repo": "shop", "q": "retry"}).status_code == 200
    assert client.get("/api/search", {"repo": "shop", "q": "retry"}).status_code == 429
    assert client.get("/search/", {"repo": "shop", "q": "retry"}).status_code == 429


def test_daily_llm_budget(shop, settings, paid_llm, django_user_model):
    limits(settings, FULL_RATE_PER_MINUTE=0, LLM_DAILY_BUDGET=2)
    client = Client()
    client.force_login(django_user_model.objects.create_user("carol", password="pw-123456789"))
    codes = [
        client.get("/api/search", {"repo": "shop", "q": f"q{i}", "mode": "full"}).status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 429]
    assert (
        "budget"
        in client.get("/api/search", {"repo": "shop", "q": "q9", "mode": "full"}).json()["detail"]
    )


def test_callers_behind_a_trusted_proxy_are_told_apart(shop, settings):
    limits(settings, SEARCH_RATE_PER_MINUTE=1)
    proxy = {"REMOTE_ADDR": "10.0.0.5"}
    first = Client(**proxy, HTTP_X_FORWARDED_FOR="203.0.113.7")
    second = Client(**proxy, HTTP_X_FORWARDED_FOR="198.51.100.9")
    # Without trusting the proxy, everyone behind it shares its address's single allowance.
    assert first.get("/api/search", {"repo": "shop", "q": "x"}).status_code == 200
    assert second.get("/api/search", {"repo": "shop", "q": "x"}).status_code == 429
    cache.clear()
    settings.REPORIFT = {**settings.REPORIFT, "TRUSTED_PROXIES": ["10.0.0.0/8"]}
    assert first.get("/api/search", {"repo": "shop", "q": "x"}).status_code == 200
    assert second.get("/api/search", {"repo": "shop", "q": "x"}).status_code == 200
    assert first.get("/api/search", {"repo": "shop", "q": "x"}).status_code == 429


def test_client_address_ignores_what_the_client_wrote(rf, settings):
    settings.REPORIFT = {**settings.REPORIFT, "TRUSTED_PROXIES": ["10.0.0.0/8"]}
    spoofed = rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")
    assert client_address(spoofed) == "203.0.113.7"  # the proxy appended the real one last
    chained = rf.get("/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="203.0.113.7, 10.0.0.9")
    assert client_address(chained) == "203.0.113.7"
    direct = rf.get("/", REMOTE_ADDR="203.0.113.8", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert client_address(direct) == "203.0.113.8"  # not from a trusted proxy: header ignored
