"""Code generation (the paper's C and C_i): the LLM writes code for the augmented query; tree-sitter
splits it into its component functions. Code that does not parse is repaired once, then dropped
with the reason recorded."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from agents.errors import LLMError
from agents.llm import LLMClient
from agents.prompts import CODEGEN, CODEGEN_REPAIR, CODEGEN_SHORT
from indexing.parsing import CLASS, parse_source

_FENCE = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)(?:```|$)", re.S | re.I)
MAX_CODE_CHARS = 6000


@dataclass
class GeneratedCode:
    code: str = ""
    components: list[str] = field(default_factory=list)
    repaired: bool = False
    dropped_reason: str = ""
    latency_ms: float = 0.0


def extract_code(text: str) -> str:
    """The first fenced block, or the whole answer when the model forgot the fence."""
    match = _FENCE.search(text)
    code = match.group(1) if match else text
    return code.strip()[:MAX_CODE_CHARS]


def split_components(code: str) -> tuple[list[str], bool]:
    """Top-level functions and methods of `code` (nested helpers stay inside their function),
    and whether the code parsed without errors."""
    parsed = parse_source(code.encode())
    components = [
        unit.code
        for unit in parsed.units
        if unit.kind != CLASS and (not unit.parent_qualname or unit.class_name)
    ]
    return components, not parsed.has_errors


STYLES = {"full": (CODEGEN, 400), "short": (CODEGEN_SHORT, 200)}


def generate_code(
    description: str, *, client: LLMClient, style: str = "full", budget_s: float | None = None
) -> GeneratedCode:
    """`full`: the paper's code for the description, split into its functions; `short`: one
    function of at most 15 lines (HyDE), which a small model writes in a few seconds.
    `budget_s` bounds the whole stage, the repair included."""
    prompt, max_tokens = STYLES[style]
    deadline = None if budget_s is None else time.monotonic() + budget_s
    result = GeneratedCode()
    answer = client.complete(
        prompt.messages(description=description),
        purpose="codegen",
        prompt_version=prompt.id,
        max_tokens=max_tokens,
        timeout_s=budget_s,
    )
    result.latency_ms += answer.latency_ms
    code = extract_code(answer.text)
    if not code:
        result.dropped_reason = "the model returned no code"
        return result
    components, clean = split_components(code)
    if not clean:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 1:
            result.dropped_reason = "code did not parse and no time was left to repair it"
            return result
        try:
            fixed = client.complete(
                CODEGEN_REPAIR.messages(code=code),
                purpose="codegen_repair",
                prompt_version=CODEGEN_REPAIR.id,
                max_tokens=max_tokens,
                timeout_s=left,
            )
        except LLMError as exc:
            result.dropped_reason = f"code did not parse and the repair failed: {exc}"
            return result
        result.latency_ms += fixed.latency_ms
        result.repaired = True
        code = extract_code(fixed.text)
        components, clean = split_components(code)
        if not clean:
            result.dropped_reason = "code did not parse, even after one repair"
            return result
    result.code = code
    result.components = components
    return result
