import pytest

from agents.errors import LLMError
from agents.llm import OpenAICompatibleClient
from agents.models import LLMCall
from tests.agents.conftest import Reply

pytestmark = pytest.mark.django_db
MESSAGES = [{"role": "user", "content": "hi"}]


def ask(client, **kwargs):
    return client.complete(MESSAGES, purpose="test", prompt_version="t.v1", **kwargs)


def test_completion_is_logged_and_cached(fake_client, fake_llm):
    fake_llm.answer("hello")
    first = ask(fake_client)
    second = ask(fake_client)
    assert first.text == second.text == "hello"
    assert (first.prompt_tokens, first.completion_tokens) == (11, 7)
    assert not first.cached and second.cached
    assert len(fake_llm.requests) == 1, "a repeated query costs nothing"
    calls = list(LLMCall.objects.order_by("id").values_list("model", "purpose", "cached"))
    assert calls == [("fake-model", "test", False), ("fake-model", "test", True)]


def test_different_parameters_are_different_cache_entries(fake_client, fake_llm):
    ask(fake_client, max_tokens=10)
    ask(fake_client, max_tokens=20)
    assert len(fake_llm.requests) == 2


def test_timeout(fake_client, fake_llm):
    fake_llm.answer(Reply("late", delay_s=3))
    with pytest.raises(LLMError, match="timed out"):
        ask(fake_client)
    assert LLMCall.objects.get().error


def test_http_500(fake_client, fake_llm):
    fake_llm.answer(Reply(status=500, raw=b'{"error": "boom"}'))
    with pytest.raises(LLMError, match="HTTP 500"):
        ask(fake_client)


def test_malformed_json_body(fake_client, fake_llm):
    fake_llm.answer(Reply(raw=b"{this is not json"))
    with pytest.raises(LLMError, match=r"^bad answer from the LLM: Expecting property name"):
        ask(fake_client)


def test_answer_without_a_choice(fake_client, fake_llm):
    fake_llm.answer(Reply(raw=b'{"id": "x", "object": "chat.completion", "choices": []}'))
    with pytest.raises(LLMError, match=r"^the LLM answered without a choice$"):
        ask(fake_client)


def test_retries_are_bounded(fake_llm, db):
    client = OpenAICompatibleClient(
        base_url=fake_llm.base_url, model="m", timeout_s=2, max_retries=1
    )
    fake_llm.answer(Reply(status=503, raw=b"{}"))
    with pytest.raises(LLMError):
        ask(client)
    assert len(fake_llm.requests) == 2  # the first try and one retry


def test_unreachable():
    client = OpenAICompatibleClient(
        base_url="http://127.0.0.1:9/v1", model="m", timeout_s=1, max_retries=0, use_cache=False
    )
    with pytest.raises(LLMError, match="cannot reach"):
        client.complete(MESSAGES, purpose="t", prompt_version="t.v1")
