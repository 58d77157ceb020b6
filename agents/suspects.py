"""The paper's query augmentation for an issue: an LLM reads the bug report and names suspects
(files, symbols, concepts) that `search.locate` searches beside the issue's own clues.

The answer is parsed and checked here: a JSON object of three lists of short strings, anything
else refused as garbage (LLMError), so that a model that rambles, times out or answers in prose
is reported and the search goes on without it.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field

from agents.errors import LLMError
from agents.prompts import ISSUE_SUSPECTS, data_block

# What of the issue and the repository the prompt holds: a small model's window is short, and
# the engine reads the whole issue itself.
ISSUE_CHARS = 6000
SAMPLE_PATHS = 150
PER_LIST = 5
_OBJECT = re.compile(r"\{.*\}", re.S)


@dataclass
class Suspects:
    files: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    model: str = ""
    cut: bool = False  # the prompt held only the issue's first ISSUE_CHARS characters


def parse_suspects(text: str) -> Suspects:
    """The suspects in an answer, or LLMError when it holds no such JSON object."""
    match = _OBJECT.search(text)
    if match is None:
        raise LLMError("the LLM named no suspects (no JSON object in its answer)")
    try:
        data = json.loads(match.group(0))
    except ValueError as exc:
        raise LLMError(f"the LLM's suspects are not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise LLMError("the LLM's suspects are not a JSON object")

    def strings(key: str) -> list[str]:
        values = data.get(key) or []
        if not isinstance(values, list):
            return []
        return [v.strip()[:200] for v in values if isinstance(v, str) and v.strip()][:PER_LIST]

    found = Suspects(strings("files"), strings("symbols"), strings("concepts"))
    if not (found.files or found.symbols or found.concepts):
        raise LLMError("the LLM named no suspects")
    return found


def name_suspects(
    *, issue: str, paths: list[str], client, budget_s: float | None = None
) -> Suspects:
    """Ask the LLM where the fix for `issue` goes; `paths` are the repository's files (a sample
    of them goes into the prompt)."""
    started = time.perf_counter()
    step = max(1, len(paths) // SAMPLE_PATHS)
    sample = "\n".join(paths[::step][:SAMPLE_PATHS])
    answer = client.complete(
        ISSUE_SUSPECTS.messages(paths=data_block(sample), issue=data_block(issue[:ISSUE_CHARS])),
        purpose="issue_suspects",
        prompt_version=ISSUE_SUSPECTS.id,
        max_tokens=200,
        json_mode=True,
        timeout_s=budget_s,
    )
    found = parse_suspects(answer.text)
    found.latency_ms = (time.perf_counter() - started) * 1000
    found.model = getattr(answer, "model", "")
    found.cut = len(issue) > ISSUE_CHARS
    return found
