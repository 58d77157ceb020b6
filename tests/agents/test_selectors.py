import pytest

from agents.models import LLMCall
from agents.selectors import full_mode_plan

pytestmark = pytest.mark.django_db


@pytest.fixture
def endpoint(settings):
    """An operator's endpoint serving `test-model`, with per-model choices the test sets."""

    def configure(**choices):
        llm = {
            **settings.REPORIFT["LLM"],
            "BASE_URL": "http://127.0.0.1:9/v1",
            "MODEL": "test-model",
        }
        agents = settings.REPORIFT["AGENTS"]
        per_model = {**agents["PER_MODEL"], "test-model": choices}
        settings.REPORIFT = {
            **settings.REPORIFT,
            "LLM": llm,
            "AGENTS": {**agents, "PER_MODEL": per_model},
        }

    return configure


def test_a_model_whose_stages_are_off_says_it_answers_as_fast_mode(endpoint):
    endpoint(STAGES=[])
    plan = full_mode_plan()
    assert plan.model == "test-model" and plan.expected_s is None
    assert "answers as fast mode" in plan.summary


def test_the_pointwise_judge_is_described_with_its_measured_time(endpoint):
    endpoint(STAGES=["rerank"], RERANKER="pointwise", RERANK_CANDIDATES=10, FULL_MODE_P50_S=9)
    plan = full_mode_plan()
    assert plan.summary == (
        "Full mode: test-model judges the top 10 results one by one and re-orders them."
    )
    assert plan.expected_s == 9.0


def test_this_machines_own_calls_replace_the_measured_time(endpoint):
    endpoint(STAGES=["S5", "rerank"], RERANKER="pointwise", RERANK_CANDIDATES=10, FULL_MODE_P50_S=9)
    LLMCall.objects.bulk_create(
        [LLMCall(model="test-model", purpose="rerank", prompt_version="p", latency_ms=400)] * 12
        + [
            LLMCall(
                model="test-model", purpose="rerank", prompt_version="p", latency_ms=1, cached=True
            )
        ]
        * 30
        + [LLMCall(model="other", purpose="rerank", prompt_version="p", latency_ms=9000)] * 12
    )
    # Augmentation has no calls of its own yet: the measured figure stands.
    assert full_mode_plan().expected_s == 9.0
    LLMCall.objects.bulk_create(
        [LLMCall(model="test-model", purpose="augment", prompt_version="p", latency_ms=2000)] * 10
    )
    plan = full_mode_plan()
    assert plan.expected_s == 6.0  # 10 judgements of 0.4 s and one 2 s expansion
    assert "expands the query and judges the top 10" in plan.summary


def test_no_endpoint_says_full_mode_is_unavailable(settings):
    settings.REPORIFT = {
        **settings.REPORIFT,
        "LLM": {**settings.REPORIFT["LLM"], "BASE_URL": "", "EMBEDDED": False},
    }
    plan = full_mode_plan()
    assert plan.model == "" and "unavailable" in plan.summary
