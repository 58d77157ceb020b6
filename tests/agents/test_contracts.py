"""The LLM seams' contracts (tests/contracts.py), run against a fake OpenAI-compatible server;
the real embedded model runs the same contracts in test_embedded_model.py."""

import pytest

from agents.augment import CrewAIResearchAugmenter, PromptAugmenter
from agents.llm import OpenAICompatibleClient
from agents.rerank import LLMReranker, PointwiseReranker
from tests.agents.conftest import Reply
from tests.contracts import (
    AugmenterContract,
    LLMClientContract,
    RerankerContract,
)

pytestmark = pytest.mark.django_db


class TestOpenAICompatibleClient(LLMClientContract):
    @pytest.fixture
    def llm_client_backend(self, fake_llm):
        fake_llm.answer("hello")
        return OpenAICompatibleClient(
            base_url=fake_llm.base_url, model="fake", timeout_s=5, max_retries=0
        )


DESCRIPTION = "Code that retries an HTTP call with exponential backoff."


class TestPromptAugmenter(AugmenterContract):
    @pytest.fixture
    def augmenter_backend(self, fake_client, fake_llm):
        fake_llm.answer(DESCRIPTION)
        return PromptAugmenter(client=fake_client)


class TestCrewAIResearchAugmenter(AugmenterContract):
    @pytest.fixture
    def augmenter_backend(self, fake_llm):
        fake_llm.answer(f"Final Answer: {DESCRIPTION}")
        return CrewAIResearchAugmenter(
            base_url=fake_llm.base_url, model="fake", api_key="x", budget_s=30
        )


def _listwise_answer(first):
    import json

    return Reply("no") if first is None else Reply(json.dumps({"ranking": [f"c{first + 1}"]}))


class TestListwiseReranker(RerankerContract):
    @pytest.fixture
    def reranker_backend(self, fake_client, fake_llm):
        def make(first):
            fake_llm.answer(_listwise_answer(first))
            return LLMReranker(client=fake_client, weight=1.0)

        return make


class TestPointwiseReranker(RerankerContract):
    @pytest.fixture
    def reranker_backend(self, fake_client, fake_llm):
        def make(first):
            def judge(body):
                if first is None:
                    return Reply(status=500, raw=b"{}")
                prompt = body["messages"][-1]["content"]
                return Reply("Yes" if f"def f{first}()" in prompt else "No")

            fake_llm.answer_with(judge)
            return PointwiseReranker(client=fake_client, weight=1.0)

        return make
