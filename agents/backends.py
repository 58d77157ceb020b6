"""Entry points of the LLM layer for the rest of the app, built from settings."""

from __future__ import annotations

from django.conf import settings

from agents.augment import Augmenter, CrewAIResearchAugmenter, PromptAugmenter
from agents.llm import get_llm_client, llm_endpoint
from agents.rerank import LLMReranker, PointwiseReranker, Reranker


def model_settings(model: str) -> dict:
    """Per-model choices (which LLM stages are on, the reranker's blend weight). They are set
    by measurement: see docs/BENCHMARKS.md. A model without an entry uses `default`."""
    per_model = settings.REPORIFT["AGENTS"]["PER_MODEL"]
    return {**per_model["default"], **per_model.get(model, {})}


def get_augmenter() -> Augmenter:
    conf = settings.REPORIFT["AGENTS"]
    client = get_llm_client()
    budget = model_settings(client.model)["AUGMENT_BUDGET_S"]
    if conf["AUGMENTER"] == "prompt":
        return PromptAugmenter(client=client, budget_s=budget)
    base_url, model, api_key = llm_endpoint()
    return CrewAIResearchAugmenter(
        base_url=base_url,
        model=model,
        api_key=api_key,
        budget_s=budget,
        web_search_url=settings.REPORIFT["LLM"]["WEB_SEARCH_URL"],
    )


def get_reranker() -> Reranker:
    client = get_llm_client()
    choices = model_settings(client.model)
    common = {
        "client": client,
        "weight": choices["RERANK_WEIGHT"],
        "max_candidates": choices["RERANK_CANDIDATES"],
        "candidate_chars": choices["RERANK_CHARS"],
    }
    if choices["RERANKER"] == "pointwise":
        return PointwiseReranker(
            **common,
            budget_s=choices["RERANK_BUDGET_S"],
            blend=choices["RERANK_BLEND"],
            prompt_version=choices["RERANK_PROMPT"],
            reads=choices["RERANK_READS"],
        )
    return LLMReranker(**common)
