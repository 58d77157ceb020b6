"""The LLM reranker: a listwise order of 5 to 30 candidates, with a one-line reason for the top.

The answer is validated (known ids only, no duplicates, missing ids appended in their prior
order) and then blended with the fused retrieval order: final = (1 - w) * retrieval + w * LLM,
both as reciprocal ranks, with `w` set per model by measurement. Garbage, timeouts and refusals
leave the retrieval order as it was: a candidate is never lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from agents.llm import LLMClient, LLMError
from agents.prompts import RERANK, data_block

MAX_CANDIDATE_CHARS = 600
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)
_ID = re.compile(r"\bc(\d+)\b")


@dataclass(frozen=True)
class Candidate:
    key: object  # the caller's id, returned as is
    text: str  # what the LLM sees: signature, docstring, code


@dataclass
class RerankResult:
    order: list[object]  # the caller's keys, best first, every candidate exactly once
    reasons: dict[object, str] = field(default_factory=dict)
    error: str = ""
    latency_ms: float = 0.0
    llm_order: list[object] = field(default_factory=list)


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, candidates: Sequence[Candidate]) -> RerankResult: ...


def parse_ranking(text: str, n: int) -> tuple[list[int], dict[int, str]]:
    """Candidate indexes (0-based) in the LLM's order and its reasons; raises ValueError when
    nothing usable is there. Unknown and duplicate ids are dropped."""
    ranking_ids: list[str] = []
    reasons_raw: dict[str, str] = {}
    match = _JSON_OBJECT.search(text)
    if match:
        try:
            data = json.loads(match.group())
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            ranking = data.get("ranking")
            if isinstance(ranking, list):
                ranking_ids = [str(item) for item in ranking]
            reasons = data.get("reasons")
            if isinstance(reasons, dict):
                reasons_raw = {str(k): str(v) for k, v in reasons.items()}
    if not ranking_ids:  # weak models often answer "c3, c1, c2" instead of JSON
        ranking_ids = [f"c{m}" for m in _ID.findall(text)]
    order: list[int] = []
    for candidate_id in ranking_ids:
        m = _ID.fullmatch(candidate_id.strip())
        if not m:
            continue
        index = int(m.group(1)) - 1
        if 0 <= index < n and index not in order:
            order.append(index)
    if not order:
        raise ValueError("no known candidate id in the answer")
    reasons = {}
    for candidate_id, reason in reasons_raw.items():
        m = _ID.fullmatch(candidate_id.strip())
        if m and 0 <= int(m.group(1)) - 1 < n:
            reasons[int(m.group(1)) - 1] = " ".join(reason.split())[:200]
    return order, reasons


def complete_order(llm_order: list[int], n: int) -> list[int]:
    """The LLM's order, then every candidate it left out, in the prior (retrieval) order."""
    return llm_order + [i for i in range(n) if i not in llm_order]


def blend(n: int, llm_order: list[int], weight: float) -> list[int]:
    """Mix retrieval rank (the input order) and LLM rank as weighted reciprocal ranks."""
    if weight <= 0:
        return list(range(n))
    llm_rank = {index: rank for rank, index in enumerate(complete_order(llm_order, n), start=1)}

    def score(index: int) -> float:
        return (1 - weight) / (index + 1) + weight / llm_rank[index]

    return sorted(range(n), key=lambda i: (-score(i), i))


class LLMReranker:
    def __init__(
        self,
        *,
        client: LLMClient,
        weight: float,
        max_tokens: int = 300,
        max_candidates: int = 30,
        candidate_chars: int = MAX_CANDIDATE_CHARS,
    ) -> None:
        self.client = client
        self.weight = weight
        self.max_tokens = max_tokens
        self.max_candidates = max_candidates
        self.candidate_chars = candidate_chars

    def rerank(self, query: str, candidates: Sequence[Candidate]) -> RerankResult:
        """Rerank the first `max_candidates`; the rest keep their places after them."""
        keep = RerankResult(order=[c.key for c in candidates])
        tail = list(candidates[self.max_candidates :])
        candidates = list(candidates[: self.max_candidates])
        n = len(candidates)
        if n < 2:
            return keep
        listing = "\n".join(
            f"[c{i}]\n{data_block(c.text[: self.candidate_chars])}"
            for i, c in enumerate(candidates, start=1)
        )
        try:
            answer = self.client.complete(
                RERANK.messages(query=query, candidates=listing),
                purpose="rerank",
                prompt_version=RERANK.id,
                max_tokens=self.max_tokens,
                # Constrained decoding (OpenAI, llama.cpp, vLLM): the answer is JSON at least.
                json_mode=True,
            )
            keep.latency_ms = answer.latency_ms
            llm_order, reasons = parse_ranking(answer.text, n)
        except (LLMError, ValueError) as exc:
            keep.error = f"reranker fell back to the retrieval order: {exc}"
            return keep
        final = blend(n, llm_order, self.weight)
        return RerankResult(
            order=[candidates[i].key for i in final] + [c.key for c in tail],
            reasons={candidates[i].key: r for i, r in reasons.items()},
            latency_ms=keep.latency_ms,
            llm_order=[candidates[i].key for i in complete_order(llm_order, n)],
        )
