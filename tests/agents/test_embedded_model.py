"""The real embedded model (SmolLM2-135M-Instruct from its wheel, served by llama.cpp on
loopback), with no network. It is weak: these tests check that the pipeline stays correct with
it, not that its judgement is good."""

import pytest

from agents.augment import CrewAIResearchAugmenter
from agents.codegen import generate_code, split_components
from agents.llm import get_llm_client, llm_endpoint
from agents.rerank import Candidate, LLMReranker

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture(scope="module")
def client(django_db_blocker):
    with django_db_blocker.unblock():
        get_llm_client.cache_clear()
        return get_llm_client()


def test_serves_on_loopback(client):
    base_url, model, _ = llm_endpoint()
    assert base_url.startswith("http://127.0.0.1:") and model == client.model


def test_research_agent_augments_on_topic(client):
    base_url, model, _ = llm_endpoint()
    augmenter = CrewAIResearchAugmenter(base_url=base_url, model=model, api_key="", budget_s=120)
    query = "read a json file"
    result = augmenter.augment(
        query, search_docs=lambda q: ["utils.py: load_config reads a JSON configuration file."]
    )
    assert not result.error, result.error
    added = result.text[len(query) :].lower()
    assert len(result.text) > len(query) + 20
    assert "json" in added or "file" in added


def test_generated_code_parses(client):
    result = generate_code("A Python function that reverses a string.", client=client)
    assert not result.dropped_reason, result.dropped_reason
    components, clean = split_components(result.code)
    assert clean and components


def test_rerank_returns_a_valid_permutation(client):
    texts = [
        "def add(a, b):\n    return a + b",
        "def read_json(path):\n    with open(path) as f:\n        return json.load(f)",
        "def reverse(s):\n    return s[::-1]",
        "class Stack:\n    def push(self, x): ...",
        "def mean(xs):\n    return sum(xs) / len(xs)",
    ]
    candidates = [Candidate(key=i, text=t) for i, t in enumerate(texts)]
    result = LLMReranker(client=client, weight=0.5).rerank("load a json file", candidates)
    assert sorted(result.order) == list(range(5))
    assert len(set(result.order)) == 5
