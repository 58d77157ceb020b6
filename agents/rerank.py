"""LLM rerankers, two kinds behind one protocol.

- Listwise: the model sees 5 to 30 candidates and answers their order as JSON, with a one-line
  reason for the top. The answer is validated (known ids only, no duplicates, missing ids
  appended in their prior order). Strong models do this well.
- Pointwise: the model judges one candidate at a time with a single "Yes"/"No" token, and the
  log-probabilities of the two make a score; small local models can do this, and a time budget
  cuts it short (candidates not judged in time keep their places).

Either order is blended with the retrieval order: final = (1 - w) * retrieval + w * LLM, both as
reciprocal ranks, with `w` set per model by measurement. The pointwise reranker can instead blend
scores (`blend="scores"`): the retrieval score, standardised over the judged candidates (its
scale is arbitrary), and the judgement's log-odds as they are (their scale is the model's own),
so a confident judgement moves a candidate by its margin and a hesitant one barely at all (a
rank blend treats 0.51 against 0.49 like 0.99 against 0.01).
Garbage, timeouts and refusals leave the retrieval order as it was: a candidate is never lost.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from agents.errors import LLMError
from agents.llm import LLMClient
from agents.prompts import POINTWISE_PROMPTS, RERANK, code_block, data_block
from reporift.standardise import zscore

MAX_CANDIDATE_CHARS = 600
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)
_ID = re.compile(r"\bc(\d+)\b")


@dataclass(frozen=True)
class Candidate:
    key: object  # the caller's id, returned as is
    text: str  # what the LLM sees: signature, docstring, code
    score: float | None = None  # the retrieval score (higher is better), where there is one
    # A shorter text, where the caller has one: the signature and the lines that match the
    # query (search.excerpts). A pointwise judge set to read excerpts reads this instead.
    excerpt: str = ""


@dataclass
class RerankResult:
    order: list[object]  # the caller's keys, best first, every candidate exactly once
    reasons: dict[object, str] = field(default_factory=dict)
    error: str = ""
    latency_ms: float = 0.0
    llm_order: list[object] = field(default_factory=list)
    scores: dict[object, float] = field(default_factory=dict)  # pointwise P(yes) per key


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


YES = ("yes", "Yes", "YES", " yes", " Yes")
NO = ("no", "No", "NO", " no", " No")


def yes_probability(first_token_logprobs: dict[str, float]) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the answer's first token, or None when neither word is
    among the alternatives the server returned (the model answered something else)."""
    yes = sum(math.exp(v) for k, v in first_token_logprobs.items() if k in YES)
    no = sum(math.exp(v) for k, v in first_token_logprobs.items() if k in NO)
    if yes + no == 0:
        return None
    return yes / (yes + no)


def log_odds(probability: float) -> float:
    p = min(max(probability, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def blend_scores(retrieval: Sequence[float], judged: Sequence[float], weight: float) -> list[int]:
    """Indexes best first by (1 - w) * standardised retrieval score + w * log-odds of P(yes);
    ties keep the retrieval order."""
    combined = (1 - weight) * zscore(np.asarray(retrieval, dtype=float)) + weight * np.array(
        [log_odds(p) for p in judged]
    )
    return sorted(range(len(combined)), key=lambda i: (-combined[i], i))


class PointwiseReranker:
    def __init__(
        self,
        *,
        client: LLMClient,
        weight: float,
        max_candidates: int = 10,
        candidate_chars: int = MAX_CANDIDATE_CHARS,
        budget_s: float = 20.0,
        blend: str = "ranks",
        prompt_version: int = 2,
        reads: str = "text",
    ) -> None:
        if blend not in ("ranks", "scores"):
            raise ValueError(f"blend is 'ranks' or 'scores', not {blend!r}")
        if prompt_version not in POINTWISE_PROMPTS:
            raise ValueError(f"no pointwise prompt version {prompt_version}")
        if reads not in ("text", "excerpt"):
            raise ValueError(f"reads is 'text' or 'excerpt', not {reads!r}")
        self.client = client
        self.weight = weight
        self.max_candidates = max_candidates
        self.candidate_chars = candidate_chars
        self.budget_s = budget_s
        self.blend = blend
        self.prompt = POINTWISE_PROMPTS[prompt_version]
        self.reads = reads

    def text_of(self, candidate: Candidate) -> str:
        if self.reads == "excerpt" and candidate.excerpt:
            return candidate.excerpt
        return candidate.text

    def judge(self, query: str, text: str) -> float | None:
        answer = self.client.complete(
            self.prompt.messages(query=query, code=code_block(text[: self.candidate_chars])),
            purpose="rerank",
            prompt_version=self.prompt.id,
            max_tokens=1,
            top_logprobs=10,
        )
        return yes_probability(answer.first_token_logprobs)

    def rerank(self, query: str, candidates: Sequence[Candidate]) -> RerankResult:
        start = time.perf_counter()
        result = RerankResult(order=[c.key for c in candidates])
        head = list(candidates[: self.max_candidates])
        scores: dict[int, float] = {}
        problems: list[str] = []
        for index, candidate in enumerate(head):
            if time.perf_counter() - start > self.budget_s:
                problems.append(f"time budget spent after {index} of {len(head)} candidates")
                break
            try:
                score = self.judge(query, self.text_of(candidate))
            except LLMError as exc:
                problems.append(str(exc))
                break
            if score is not None:
                scores[index] = score
        result.latency_ms = (time.perf_counter() - start) * 1000
        if problems:
            result.error = f"reranker judged {len(scores)} of {len(head)}: {problems[0]}"
        if len(scores) < 2:
            return result
        # The judged candidates are re-ordered among the places they held; the rest stay put.
        judged = sorted(scores)
        llm_order = sorted(range(len(judged)), key=lambda j: (-scores[judged[j]], j))
        retrieval = [candidates[i].score for i in judged]
        # Without retrieval scores (a caller that has none) the rank blend is all there is.
        if self.blend == "scores" and None not in retrieval:
            blended = blend_scores(retrieval, [scores[i] for i in judged], self.weight)
        else:
            blended = blend(len(judged), llm_order, self.weight)
        order = list(range(len(candidates)))
        for place, j in zip(judged, blended, strict=True):
            order[place] = judged[j]
        result.order = [candidates[i].key for i in order]
        result.llm_order = [candidates[judged[j]].key for j in llm_order]
        result.scores = {candidates[i].key: s for i, s in scores.items()}
        return result
