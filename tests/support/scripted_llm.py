"""A scripted in-process LLM: each prompt's answer is chosen by a function of (prompt id, user
message), so the control flow of the agents that call an LLM is tested without a model (the
embedded model's own tests run the real one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agents.llm import Completion


@dataclass
class ScriptedLLM:
    answer: Callable[[str, str], str]
    model: str = "scripted"
    calls: list[tuple[str, str]] = field(default_factory=list)
    temperatures: list[float] = field(default_factory=list)  # of each call
    interrupt_at: int | None = None  # raise KeyboardInterrupt on this call (1-based)

    def complete(self, messages, *, purpose, prompt_version, max_tokens=256, **kwargs):
        self.calls.append((prompt_version, messages[-1]["content"]))
        self.temperatures.append(kwargs.get("temperature", 0.0))
        if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        text = self.answer(prompt_version, messages[-1]["content"])
        logprobs = {}
        if kwargs.get("top_logprobs") and text in ("Yes", "No"):
            logprobs = {text: -0.1, "No" if text == "Yes" else "Yes": -2.5}
        return Completion(text, self.model, 1.0, first_token_logprobs=logprobs)
