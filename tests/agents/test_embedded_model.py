"""The real embedded model (Qwen2.5-Coder-0.5B-Instruct, assembled from its wheels and served by
llama.cpp on loopback), with no network: the LLM seams' contracts, and the pointwise scorer on
pairs where the answer is not in doubt."""

import pytest

from agents.augment import CrewAIResearchAugmenter, PromptAugmenter
from agents.codegen import generate_code, split_components
from agents.llm import get_llm_client, llm_endpoint
from agents.rerank import Candidate, PointwiseReranker
from tests.contracts import AugmenterContract, LLMClientContract

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture(scope="module")
def client(django_db_blocker):
    with django_db_blocker.unblock():
        get_llm_client.cache_clear()
        return get_llm_client()


def test_serves_the_default_model_on_loopback(client):
    base_url, model, _ = llm_endpoint()
    assert base_url.startswith("http://127.0.0.1:") and model == client.model
    assert model == "qwen2.5-coder-0.5b-instruct"


class TestEmbeddedClient(LLMClientContract):
    @pytest.fixture
    def llm_client_backend(self, client):
        return client


class TestPromptAugmenterOnTheEmbeddedModel(AugmenterContract):
    @pytest.fixture
    def augmenter_backend(self, client):
        return PromptAugmenter(client=client)


def test_research_agent_on_the_embedded_model(client):
    base_url, model, _ = llm_endpoint()
    augmenter = CrewAIResearchAugmenter(base_url=base_url, model=model, api_key="", budget_s=120)
    result = augmenter.augment(
        "read a json file",
        search_docs=lambda q: ["utils.py: load_config reads a JSON configuration file."],
    )
    assert not result.error, result.error
    assert result.text.startswith("read a json file. ") and "json" in result.text[18:].lower()


def test_short_generated_code_parses(client):
    result = generate_code("reverse a string", client=client, style="short")
    assert not result.dropped_reason, result.dropped_reason
    components, clean = split_components(result.code)
    assert clean and len(components) >= 1


EASY = [
    (
        "read a json file",
        "def load_json(path):\n    with open(path) as f:\n        return json.load(f)",
        "def mean(values):\n    return sum(values) / len(values)",
    ),
    (
        "reverse a string",
        "def reverse(text):\n    return text[::-1]",
        "class Stack:\n    def push(self, item):\n        self.items.append(item)",
    ),
    (
        "retry a failed http request",
        "def fetch_with_retry(url, attempts=3):\n    for _ in range(attempts):\n        try:\n"
        "            return requests.get(url)\n        except requests.ConnectionError:\n"
        "            time.sleep(1)",
        "def slugify(title):\n    return '-'.join(title.lower().split())",
    ),
]


@pytest.mark.parametrize("query, relevant, unrelated", EASY)
def test_pointwise_scorer_prefers_the_answer(client, query, relevant, unrelated):
    scorer = PointwiseReranker(client=client, weight=1.0)
    yes_relevant, yes_unrelated = scorer.judge(query, relevant), scorer.judge(query, unrelated)
    assert yes_relevant is not None and yes_unrelated is not None
    assert yes_relevant > yes_unrelated
    result = scorer.rerank(query, [Candidate("u", unrelated), Candidate("r", relevant)])
    assert result.order == ["r", "u"] and not result.error


class Recording:
    """The real client, keeping every completion it returns."""

    def __init__(self, client):
        self.client, self.model, self.completions = client, client.model, []

    def complete(self, messages, **options):
        completion = self.client.complete(messages, **options)
        self.completions.append(completion)
        return completion


def test_query_first_judge_reuses_the_cached_prefix(client):
    """Prompt v3 puts the query before the candidate: llama.cpp keeps the last prompt's KV cache,
    so from the second candidate on, the instructions and the query are not evaluated again."""
    query = "parse the command line options of the deploy script into a settings object"
    first, second = (
        Candidate("a", "def add_numbers(left, right):\n    return left + right"),
        Candidate(
            "b", "def parse_options(argv):\n    return Settings(**dict(a.split('=') for a in argv))"
        ),
    )
    cached, later = {}, None
    client.use_cache = False  # the server's own prefix cache is what is measured
    try:
        for version in (2, 3):
            recording = Recording(client)
            judge = PointwiseReranker(client=recording, weight=1.0, prompt_version=version)
            judge.rerank(query, [first, second])
            assert len(recording.completions) == 2
            later = recording.completions[1]
            cached[version] = later.cached_prompt_tokens
    finally:
        client.use_cache = True
    evaluated = later.prompt_tokens - later.cached_prompt_tokens
    # v2 shares only the instructions; v3 the query's dozen tokens as well.
    assert cached[3] >= cached[2] + 10, cached
    assert evaluated < later.prompt_tokens * 0.6, (evaluated, later.prompt_tokens)
