"""The research agent's model for CrewAI: an OpenAI-compatible chat endpoint whose every request
ends by the agent's deadline.

A thread cannot be killed, so a time budget enforced only by `join(timeout)` leaves the agent
running on, holding the embedded server's single slot and making the next searches queue behind
it. Here each request's HTTP timeout is the time left, and a request after the deadline is
refused: when the budget is spent the request in flight is abandoned (llama.cpp, like other
servers, stops generating when its client goes away) and the agent's loop ends on the error.
"""

from __future__ import annotations

import time
from typing import Any

from crewai.llms.base_llm import BaseLLM
from pydantic import PrivateAttr


class BudgetSpent(TimeoutError):
    pass


class DeadlineLLM(BaseLLM):
    llm_type: str = "reporift-deadline"
    deadline: float  # time.monotonic() by which every request has ended
    _prompt_tokens: int = PrivateAttr(default=0)
    _completion_tokens: int = PrivateAttr(default=0)

    def call(
        self,
        messages: str | list[dict[str, Any]],
        tools: list | None = None,
        callbacks: list | None = None,
        available_functions: dict | None = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> str:
        import openai

        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise BudgetSpent("the research agent's time budget is spent")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        client = openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key or "not-needed",
            timeout=remaining,
            max_retries=0,
        )
        try:
            response = client.chat.completions.create(
                model=self.model,
                messages=[{"role": m["role"], "content": str(m["content"])} for m in messages],
                temperature=self.temperature,
                max_tokens=int(self.max_tokens) if self.max_tokens else None,
                stop=self.stop_sequences or None,
            )
        except openai.APITimeoutError as exc:
            raise BudgetSpent("the research agent's time budget ran out mid-answer") from exc
        usage = getattr(response, "usage", None)
        self._prompt_tokens += getattr(usage, "prompt_tokens", 0) or 0
        self._completion_tokens += getattr(usage, "completion_tokens", 0) or 0
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""

    def supports_function_calling(self) -> bool:
        return False  # tools go through CrewAI's text protocol, which every model can follow

    @property
    def usage(self) -> tuple[int, int]:
        return self._prompt_tokens, self._completion_tokens
