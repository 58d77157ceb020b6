"""Full mode: the LLM streams (S5 augmented query, S2 generated code, S3 its component
functions) and the reranker. Any LLM failure degrades to what still works and says so; if no
LLM stage could run, the answer is fast mode's and `mode_used` says "fast"."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from indexing.documents import search_repository_documents
from search import streams as S
from search.excerpts import excerpt
from search.retrieval import Retriever

if TYPE_CHECKING:
    from search.results import SearchResponse, SearchResult

logger = logging.getLogger(__name__)
LLM_STREAMS = ("S2", "S3", "S5")


@dataclass
class LLMStreams:
    """What the LLM stages of one search produced; `apply_to` copies it onto the response."""

    results: list[S.StreamResult] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    model: str = ""
    augmented_query: str = ""
    generated_code: str = ""
    rerank: bool = False
    fell_back: bool = False

    def fall_back(self, why: str) -> LLMStreams:
        self.fell_back = True
        self.notices.append(f"{why}; answered like fast mode")
        return self

    def apply_to(self, response: SearchResponse) -> None:
        response.notices += self.notices
        response.timings_ms.update(self.timings_ms)
        response.llm_model = self.model
        response.augmented_query = self.augmented_query
        response.generated_code = self.generated_code
        response.rerank = self.rerank
        if self.fell_back:
            response.mode_used = "fast"


def model_choices(model: str) -> dict:
    from agents.backends import model_settings

    return model_settings(model)


def run_llm_streams(
    *,
    query: str,
    retriever: Retriever,
    wanted: tuple[str, ...],
    explicit: bool,
    progress: Callable[[str, str], None],
) -> LLMStreams:
    from agents.backends import get_augmenter
    from agents.codegen import generate_code
    from agents.errors import LLMError
    from agents.llm import configured_model, get_llm_client

    out = LLMStreams()
    try:
        model = configured_model()
    except LLMError as exc:
        return out.fall_back(f"the LLM is unavailable ({exc})")
    out.model = model
    # Decided from settings before anything starts: with every stage off for this model, no
    # LLM server is started and no call is made.
    choices = model_choices(model)
    stages = set(wanted if explicit else choices["STAGES"]) & set(wanted)
    if not stages & {*LLM_STREAMS, "rerank"}:
        out.notices.append(
            f"the LLM stages are off for {model} (they did not help in measurements); "
            "answered with the retrieval streams"
        )
        return out
    try:
        client = get_llm_client()
    except LLMError as exc:
        return out.fall_back(f"the LLM is unavailable ({exc})")
    working = False
    augmented = query
    # The research agent runs for S5; code generation then starts from its description (the
    # paper's flow), and from the query itself when S5 is off.
    if "S5" in stages:
        generation = retriever.generation
        progress("augment", "running")
        outcome = get_augmenter().augment(
            query,
            search_docs=lambda text: search_repository_documents(run=generation, query=text),
        )
        progress("augment", "done")
        out.timings_ms["augment"] = round(outcome.latency_ms, 2)
        out.augmented_query = outcome.text
        if outcome.error:
            out.notices.append(f"query augmentation failed: {outcome.error}")
        else:
            working = True
            augmented = outcome.text
    if "S5" in stages and augmented != query:
        out.results.append(S.augmented_query_stream(retriever.streams, augmented))
    if stages & {"S2", "S3"}:
        progress("codegen", "running")
        try:
            generated = generate_code(
                augmented,
                client=client,
                style=choices["CODEGEN"],
                budget_s=choices["CODEGEN_BUDGET_S"],
            )
        except LLMError as exc:
            out.notices.append(f"code generation failed: {exc}")
        else:
            working = True
            out.timings_ms["codegen"] = round(generated.latency_ms, 2)
            out.generated_code = generated.code
            if generated.dropped_reason:
                out.notices.append(f"generated code dropped: {generated.dropped_reason}")
            if "S2" in stages and generated.code:
                out.results.append(S.generated_code_stream(retriever.streams, generated.code))
            if "S3" in stages and generated.components:
                out.results.append(
                    S.component_functions_stream(retriever.streams, generated.components)
                )
        progress("codegen", "done")
    out.rerank = "rerank" in stages
    if stages & set(LLM_STREAMS) and not working:
        out.fall_back("the LLM did not answer")
    return out


def rerank(
    *, query: str, results: list[SearchResult], response: SearchResponse
) -> list[SearchResult]:
    from agents.backends import get_reranker
    from agents.rerank import Candidate

    if len(results) < 2:
        return results
    candidates = [
        Candidate(
            key=index,
            text=_candidate_text(result),
            score=result.score,
            excerpt=_candidate_excerpt(result, query),
        )
        for index, result in enumerate(results)
    ]
    outcome = get_reranker().rerank(query, candidates)
    response.timings_ms["rerank"] = round(outcome.latency_ms, 2)
    if outcome.error:
        response.notices.append(outcome.error)
    ordered = [results[index] for index in outcome.order]
    # The LLM's part, after what fast mode's ranking said of the same result.
    for index, reason in outcome.reasons.items():
        results[index].reason = _joined(results[index].reason, f"LLM: {reason}")
    for index, p_yes in outcome.scores.items():
        results[index].reason = _joined(results[index].reason, f"LLM judge: P(yes) {p_yes:.2f}")
    return ordered


def _joined(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


def _candidate_text(result: SearchResult) -> str:
    unit = result.unit
    return f"{unit.kind} {unit.qualname} in {unit.path}\n{unit.code}"


def _candidate_excerpt(result: SearchResult, query: str) -> str:
    """What the page shows first: the signature line and the window that matches the query,
    with a marker where lines are left out between them."""
    unit = result.unit
    chosen = excerpt(unit.code, unit.start_line, query)
    lines = [f"{unit.kind} {unit.qualname} in {unit.path}"]
    if chosen.signature:
        lines.append(chosen.signature)
        if chosen.start_line > chosen.signature_line + 1:
            lines.append("    ...")
    lines.append(chosen.text)
    return "\n".join(lines)
