"""Query augmentation (the paper's information injection): a CrewAI "technical research writer"
turns the query Q into a description A of the code that would answer it, in the repository's
own vocabulary.

Its RAG tool searches the repository's README, docs and docstrings. Small models rarely decide to
call a tool, so the best excerpts for Q are also put in front of the agent as DATA; the tool
stays available for one more look-up (two in all). A web-search tool is added only when an
endpoint is configured (`agents.web_search`). The agent has a hard time budget; on failure or
overrun the query is used as is.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from agents.errors import LLMError
from agents.llm import (
    Completion,
    cache_key,
    cached_completion,
    record_call,
    store_completion,
)
from agents.prompts import AUGMENT, data_block

logger = logging.getLogger(__name__)

SearchDocs = Callable[[str], list[str]]
MAX_TOOL_CALLS = 2
MAX_AUGMENTED_CHARS = 2000
UNWIND_S = 1.0  # after the deadline, time for the agent's thread to return from its loop


@dataclass
class AugmentResult:
    text: str
    latency_ms: float = 0.0
    tool_calls: int = 0
    error: str = ""


@runtime_checkable
class Augmenter(Protocol):
    def augment(self, query: str, *, search_docs: SearchDocs) -> AugmentResult: ...


def excerpts(texts: list[str]) -> str:
    """Repository excerpts for the prompt, each fenced as data."""
    return "\n".join(data_block(text) for text in texts) or "(none found)"


def clean_augmentation(query: str, text: str) -> str:
    """The query followed by the model's description: the query's own words must never be lost,
    whatever the model wrote."""
    text = " ".join(str(text).split())[:MAX_AUGMENTED_CHARS]
    return f"{query}. {text}" if text else query


class CrewAIResearchAugmenter:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        budget_s: float,
        max_tokens: int = 200,
        web_search_url: str = "",
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.api_key = api_key or "not-needed"
        self.budget_s = budget_s
        self.max_tokens = max_tokens
        self.web_search_url = web_search_url

    def augment(self, query: str, *, search_docs: SearchDocs) -> AugmentResult:
        start = time.perf_counter()
        calls: list[str] = []

        def search(text: str) -> list[str]:
            calls.append(text)
            return search_docs(text)

        # The repository's excerpts for Q go in front of the agent, and into the cache key: the
        # same question about two repositories must not share an answer.
        context = excerpts(search(query))
        key = cache_key(
            self.model,
            AUGMENT.messages(query=query, context=context),
            {"agent": "crewai", "max_tokens": self.max_tokens, "web": self.web_search_url},
        )
        if (hit := cached_completion(key, self.model)) is not None:
            record_call(hit, "augment", AUGMENT.id)
            return AugmentResult(clean_augmentation(query, hit.text), 0.0, len(calls))
        outcome: dict[str, object] = {}
        # Every LLM request of the agent ends by this deadline (see agents.crew_llm), so the
        # thread ends with the budget instead of running on and holding the model's slot.
        deadline = time.monotonic() + self.budget_s

        def work() -> None:
            try:
                outcome["text"], outcome["usage"] = self._kickoff(
                    query, context, search, calls, deadline
                )
            except Exception as exc:  # CrewAI raises many kinds; all mean "no augmentation"
                outcome["error"] = f"{type(exc).__name__}: {exc}"

        thread = threading.Thread(target=work, name="research-agent", daemon=True)
        thread.start()
        thread.join(self.budget_s + UNWIND_S)
        latency = (time.perf_counter() - start) * 1000
        if thread.is_alive():
            error = f"research agent exceeded its {self.budget_s:.0f}s budget"
            logger.error("%s and did not stop", error)
            return AugmentResult(query, latency, len(calls), error)
        if "error" in outcome:
            error = str(outcome["error"])
            if time.monotonic() >= deadline:  # CrewAI words it in several ways
                error = f"research agent exceeded its {self.budget_s:.0f}s budget"
            return AugmentResult(query, latency, len(calls), error)
        prompt_tokens, completion_tokens = outcome.get("usage") or (0, 0)
        completion = Completion(
            str(outcome.get("text") or "").strip(),
            self.model,
            latency,
            int(prompt_tokens),
            int(completion_tokens),
        )
        if not completion.text:
            record_call(completion, "augment", AUGMENT.id, error="empty answer")
            return AugmentResult(query, latency, len(calls), "research agent returned nothing")
        record_call(completion, "augment", AUGMENT.id)
        store_completion(key, completion)
        return AugmentResult(clean_augmentation(query, completion.text), latency, len(calls))

    def _kickoff(
        self, query: str, context: str, search: SearchDocs, calls: list[str], deadline: float
    ) -> tuple[str, tuple[int, int]]:
        from crewai import Agent, Crew, Process, Task
        from crewai.tools import BaseTool

        class RepositoryDocsTool(BaseTool):
            name: str = "search_repository_docs"
            description: str = (
                "Search this repository's README, docs and docstrings. Input: a few keywords."
            )

            def _run(self, query: str) -> str:
                if len(calls) >= MAX_TOOL_CALLS:
                    return "Search limit reached; write the description now."
                found = search(str(query))
                return "\n".join(found) if found else "Nothing found."

        from agents.crew_llm import DeadlineLLM

        llm = DeadlineLLM(
            model=self.model,
            base_url=self.base_url,
            api_key=self.api_key,
            temperature=0,
            max_tokens=self.max_tokens,
            deadline=deadline,
        )
        tools = [RepositoryDocsTool()]
        if self.web_search_url:  # only when an operator configured a search endpoint
            from agents.web_search import web_search_tool

            tools.append(web_search_tool(self.web_search_url, calls, MAX_TOOL_CALLS))
        agent = Agent(
            role="technical research writer",
            goal="Describe precisely the code that answers a developer's search query",
            backstory=AUGMENT.system,
            tools=tools,
            llm=llm,
            max_iter=MAX_TOOL_CALLS,
            max_execution_time=int(self.budget_s),
            allow_delegation=False,
            verbose=False,
        )
        task = Task(
            description=AUGMENT.user.format(query=query, context=context),
            expected_output="3 to 5 sentences describing the code, on the query's topics only.",
            agent=agent,
        )
        crew = Crew(agents=[agent], tasks=[task], process=Process.sequential, verbose=False)
        output = crew.kickoff()
        return str(output.raw or ""), llm.usage


class PromptAugmenter:
    """The same instructions as one plain completion: no agent framework, for comparison and as
    the cheaper option on slow models."""

    def __init__(self, *, client, max_tokens: int = 200, budget_s: float | None = None) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.budget_s = budget_s

    def augment(self, query: str, *, search_docs: SearchDocs) -> AugmentResult:
        start = time.perf_counter()
        context = excerpts(search_docs(query))
        try:
            answer = self.client.complete(
                AUGMENT.messages(query=query, context=context),
                purpose="augment",
                prompt_version=AUGMENT.id,
                max_tokens=self.max_tokens,
                timeout_s=self.budget_s,
            )
        except LLMError as exc:
            return AugmentResult(query, (time.perf_counter() - start) * 1000, 1, str(exc))
        return AugmentResult(
            clean_augmentation(query, answer.text), (time.perf_counter() - start) * 1000, 1
        )
