"""Code generation (the paper's C and C_i): the LLM writes code for the augmented query; tree-sitter
splits it into its component functions. Code that does not parse is repaired once, then dropped
with the reason recorded."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agents.llm import LLMClient, LLMError
from agents.prompts import CODEGEN, CODEGEN_REPAIR
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


def generate_code(description: str, *, client: LLMClient, max_tokens: int = 400) -> GeneratedCode:
    result = GeneratedCode()
    answer = client.complete(
        CODEGEN.messages(description=description),
        purpose="codegen",
        prompt_version=CODEGEN.id,
        max_tokens=max_tokens,
    )
    result.latency_ms += answer.latency_ms
    code = extract_code(answer.text)
    if not code:
        result.dropped_reason = "the model returned no code"
        return result
    components, clean = split_components(code)
    if not clean:
        try:
            fixed = client.complete(
                CODEGEN_REPAIR.messages(code=code),
                purpose="codegen_repair",
                prompt_version=CODEGEN_REPAIR.id,
                max_tokens=max_tokens,
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
