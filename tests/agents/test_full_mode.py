import json

import pytest

from agents.augment import CrewAIResearchAugmenter, PromptAugmenter, clean_augmentation
from agents.llm import get_llm_client
from search.services import search
from tests.agents.conftest import Reply, use_fake_llm

pytestmark = pytest.mark.django_db

CODE = """```python
def retry_request(send, attempts=3):
    for _ in range(attempts):
        try:
            return send()
        except ConnectionError:
            pass
```"""


@pytest.fixture
def llm_settings(settings, fake_llm):
    def configure(**agents):
        use_fake_llm(settings, fake_llm, **agents)

    yield configure
    get_llm_client.cache_clear()


def test_full_mode_runs_every_stage(shop, fake_llm, llm_settings):
    llm_settings(AUGMENTER="prompt")
    fake_llm.answer(
        "Code that retries an HTTP request with backoff when the connection fails.",
        CODE,
        json.dumps({"ranking": ["c2", "c1"], "reasons": {"c2": "retries the call"}}),
    )
    response = search(repository=shop, query="retry failed http calls", mode="full", k=5)
    assert response.mode_used == "full", response.notices
    assert {"augment", "codegen", "rerank", "S2", "S3", "S5"} <= set(response.timings_ms)
    assert response.augmented_query.startswith("retry failed http calls. Code that retries")
    found_by = {s for r in response.results for s in r.streams}
    assert {"S1", "S2", "S3", "S4", "S5"} <= found_by
    assert any(r.reason.endswith("LLM: retries the call") for r in response.results)
    assert [r.rank for r in response.results] == list(range(1, len(response.results) + 1))


def test_llm_down_answers_like_fast_and_says_so(shop, settings):
    settings.REPORIFT = {
        **settings.REPORIFT,
        "LLM": {
            **settings.REPORIFT["LLM"],
            "BASE_URL": "http://127.0.0.1:9/v1",
            "MODEL": "m",
            "TIMEOUT_S": 1,
            "MAX_RETRIES": 0,
        },
        "AGENTS": {**settings.REPORIFT["AGENTS"], "AUGMENTER": "prompt"},
    }
    get_llm_client.cache_clear()
    try:
        full = search(repository=shop, query="retry failed http calls", mode="full", k=5)
    finally:
        get_llm_client.cache_clear()
    fast = search(repository=shop, query="retry failed http calls", mode="fast", k=5)
    assert full.mode_used == "fast"
    assert any("answered like fast mode" in n for n in full.notices)
    assert [r.unit.pk for r in full.results] == [r.unit.pk for r in fast.results]


def test_garbage_rerank_keeps_candidates(shop, fake_llm, llm_settings):
    llm_settings(AUGMENTER="prompt")
    fake_llm.answer("An HTTP retry helper.", CODE, "Sorry, I can't rank these.")
    response = search(repository=shop, query="retry failed http calls", mode="full", k=7)
    assert response.mode_used == "full"
    assert any("fell back to the retrieval order" in n for n in response.notices)
    assert len(response.results) == 7  # every unit of the sample repository is still there


@pytest.mark.parametrize("blend", ["scores", "ranks"])
def test_pointwise_judgements_meet_the_retrieval_scores(
    shop, fake_llm, llm_settings, settings, blend
):
    """The judge is sure of one candidate only, fast mode's fifth. Blended by scores, its
    confidence carries it to first place (the retrieval scores reach the reranker); blended by
    ranks at the same weight, it climbs but the first place holds."""
    judged = {"STAGES": ["rerank"], "RERANKER": "pointwise", "RERANK_CANDIDATES": 5}
    per_model = settings.REPORIFT["AGENTS"]["PER_MODEL"]
    llm_settings(
        PER_MODEL={
            **per_model,
            "fake-model": {**judged, "RERANK_BLEND": blend, "RERANK_WEIGHT": 0.5},
        },
    )
    fast = search(repository=shop, query="retry failed http calls", mode="fast", k=5)
    fifth = fast.results[4].unit
    marker = f"{fifth.kind} {fifth.qualname} in {fifth.path}\n"
    fake_llm.answer_with(
        lambda body: Reply("Yes" if marker in body["messages"][-1]["content"] else "No")
    )
    full = search(repository=shop, query="retry failed http calls", mode="full", k=5)
    assert full.mode_used == "full", full.notices
    assert len(fake_llm.requests) == 5
    assert {r.unit.pk for r in full.results} == {r.unit.pk for r in fast.results}
    if blend == "scores":
        assert full.results[0].unit.pk == fifth.pk
    else:
        assert full.results[0].unit.pk == fast.results[0].unit.pk
        assert [r.unit.pk for r in full.results].index(fifth.pk) < 4


def test_stages_off_for_a_model_are_skipped(shop, fake_llm, llm_settings, settings):
    llm_settings(AUGMENTER="prompt", PER_MODEL={"default": {"STAGES": [], "RERANK_WEIGHT": 0}})
    response = search(repository=shop, query="retry failed http calls", mode="full", k=3)
    assert fake_llm.requests == []
    assert any("stages are off" in n for n in response.notices)


def test_prompt_augmenter_injects_repository_docs(fake_client, fake_llm):
    fake_llm.answer("It uses HTTPAdapter with max_retries.")
    result = PromptAugmenter(client=fake_client).augment(
        "retry http", search_docs=lambda q: ["README.md: Retries use HTTPAdapter(max_retries)."]
    )
    assert result.text == "retry http. It uses HTTPAdapter with max_retries."
    prompt = fake_llm.requests[0]["messages"][1]["content"]
    assert "<<<DATA\nREADME.md: Retries use HTTPAdapter" in prompt


def test_crewai_augmenter_against_an_openai_compatible_server(fake_llm, db):
    fake_llm.answer(
        "Final Answer: Code that retries HTTP requests using an adapter with max_retries."
    )
    augmenter = CrewAIResearchAugmenter(
        base_url=fake_llm.base_url, model="fake-model", api_key="x", budget_s=60
    )
    seen = []
    result = augmenter.augment(
        "retry http calls", search_docs=lambda q: seen.append(q) or ["README: retries"]
    )
    assert not result.error, result.error
    assert result.text.startswith("retry http calls. ") and "retries HTTP" in result.text
    assert seen == ["retry http calls"]  # the repository's docs were searched for the query
    again = augmenter.augment("retry http calls", search_docs=lambda q: ["README: retries"])
    assert again.text == result.text and again.latency_ms == 0.0  # cached


def test_crewai_augmenter_budget_is_a_real_bound(fake_llm, db):
    import threading
    import time

    fake_llm.answer(Reply("too slow", delay_s=5))
    augmenter = CrewAIResearchAugmenter(
        base_url=fake_llm.base_url, model="fake-model", api_key="x", budget_s=1
    )
    start = time.monotonic()
    result = augmenter.augment("q", search_docs=lambda q: [])
    assert result.text == "q" and result.error == "research agent exceeded its 1s budget"
    assert time.monotonic() - start < 2.5
    # The agent's request was abandoned at the deadline: its thread is gone, not waiting out
    # the server's 5 s (which would hold a single-slot model server for the next search).
    time.sleep(0.3)
    assert not [t for t in threading.enumerate() if t.name == "research-agent"]
    assert len(fake_llm.requests) == 1


def test_clean_augmentation_keeps_the_query():
    assert clean_augmentation("find x", "  A   thing\n") == "find x. A thing"
    assert clean_augmentation("find x", "") == "find x"


def test_stages_off_start_no_llm(shop, settings):
    # The embedded model's stages are all off: full mode must not start its server.
    from agents import local_model

    get_llm_client.cache_clear()
    local_model.stop_embedded_server()
    response = search(repository=shop, query="retry failed http calls", mode="full", k=3)
    assert local_model._server is None
    assert response.llm_model == "qwen2.5-coder-0.5b-instruct"
    assert any("stages are off" in n for n in response.notices)
    assert response.results[0].unit.qualname == "retry_http_call"


def test_same_question_two_repositories_two_augmentations(fake_llm, db):
    fake_llm.answer("Final Answer: first repository's answer.")
    augmenter = CrewAIResearchAugmenter(
        base_url=fake_llm.base_url, model="fake-model", api_key="x", budget_s=60
    )
    first = augmenter.augment("retry", search_docs=lambda q: ["README: repository one"])
    fake_llm.answer("Final Answer: second repository's answer.")
    second = augmenter.augment("retry", search_docs=lambda q: ["README: repository two"])
    assert "first" in first.text and "second" in second.text
