"""Full mode: the LLM streams (S5 augmented query, S2 generated code, S3 its component
functions) and the reranker. Any LLM failure degrades to what still works and says so; if no
LLM stage could run, the answer is fast mode's and `mode_used` says "fast"."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from indexing.documents import search_repository_documents
from indexing.models import Repository
from search import streams as S

if TYPE_CHECKING:
    from search.services import SearchResponse, SearchResult, _StreamRunner

logger = logging.getLogger(__name__)
LLM_STREAMS = ("S2", "S3", "S5")


def enabled_stages(model: str) -> list[str]:
    from agents.services import model_settings

    return list(model_settings(model)["STAGES"])


def run_llm_streams(
    *,
    query: str,
    repository: Repository,
    runner: _StreamRunner,
    wanted: tuple[str, ...],
    response: SearchResponse,
    explicit: bool,
) -> list[S.StreamResult]:
    from agents.codegen import generate_code
    from agents.llm import LLMError, configured_model, get_llm_client
    from agents.services import get_augmenter

    try:
        model = configured_model()
    except LLMError as exc:
        _fall_back(response, f"the LLM is unavailable ({exc})")
        return []
    response.llm_model = model
    # Decided from settings before anything starts: with every stage off for this model, no
    # LLM server is started and no call is made.
    stages = set(wanted if explicit else enabled_stages(model)) & set(wanted)
    if not stages & {*LLM_STREAMS, "rerank"}:
        response.notices.append(
            f"the LLM stages are off for {model} (they did not help in measurements); "
            "answered with the retrieval streams"
        )
        return []
    try:
        client = get_llm_client()
    except LLMError as exc:
        _fall_back(response, f"the LLM is unavailable ({exc})")
        return []
    results: list[S.StreamResult] = []
    working = False
    augmented = query
    if stages & set(LLM_STREAMS):
        run_id = repository.active_run_id
        outcome = get_augmenter().augment(
            query, search_docs=lambda text: search_repository_documents(run_id=run_id, query=text)
        )
        response.timings_ms["augment"] = round(outcome.latency_ms, 2)
        response.augmented_query = outcome.text
        if outcome.error:
            response.notices.append(f"query augmentation failed: {outcome.error}")
        else:
            working = True
            augmented = outcome.text
    if "S5" in stages and augmented != query:
        results.append(runner.augmented(augmented))
    if stages & {"S2", "S3"}:
        try:
            generated = generate_code(augmented, client=client)
        except LLMError as exc:
            response.notices.append(f"code generation failed: {exc}")
        else:
            working = True
            response.timings_ms["codegen"] = round(generated.latency_ms, 2)
            response.generated_code = generated.code
            if generated.dropped_reason:
                response.notices.append(f"generated code dropped: {generated.dropped_reason}")
            if "S2" in stages and generated.code:
                results.append(runner.generated(generated.code))
            if "S3" in stages and generated.components:
                results.append(runner.components(generated.components))
    response.rerank = "rerank" in stages
    if stages & set(LLM_STREAMS) and not working:
        _fall_back(response, "the LLM did not answer")
    return results


def _fall_back(response: SearchResponse, why: str) -> None:
    response.mode_used = "fast"
    response.notices.append(f"{why}; answered like fast mode")


def rerank(
    *, query: str, results: list[SearchResult], response: SearchResponse
) -> list[SearchResult]:
    from agents.rerank import Candidate
    from agents.services import get_reranker

    if not response.rerank or len(results) < 2:
        return results
    candidates = [
        Candidate(key=index, text=_candidate_text(result)) for index, result in enumerate(results)
    ]
    outcome = get_reranker().rerank(query, candidates)
    response.timings_ms["rerank"] = round(outcome.latency_ms, 2)
    if outcome.error:
        response.notices.append(outcome.error)
    ordered = [results[index] for index in outcome.order]
    for index, reason in outcome.reasons.items():
        results[index].reason = reason
    return ordered


def _candidate_text(result: SearchResult) -> str:
    unit = result.unit
    return f"{unit.kind} {unit.qualname} in {unit.path}\n{unit.code}"
