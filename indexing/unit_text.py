"""The text that is embedded for a unit: a documented, pure function of its parts.

Styles (setting `REPORIFT["EMBED_TEXT"]`):
- `code`: the unit's source as written (signature, docstring and body).
- `header_code`: the words of path and qualname, then the source (the docstring once, inside it).
- `default`: the words of its path and qualname (snake_case and camelCase split), then the
  docstring, then the source. MiniLM was trained on natural language; spelling identifiers out
  as words lets a query like "parse the config file" meet `parseConfigFile`.

The embedder truncates at 256 word pieces, so what comes first matters most; the source is cut at
`MAX_CHARS` before tokenising because nothing past that can survive truncation anyway.
"""

from __future__ import annotations

import re
from typing import Protocol

MAX_CHARS = 3000
STYLES = ("default", "code", "header_code")

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


class UnitParts(Protocol):
    path: str
    qualname: str
    docstring: str
    code: str


def identifier_words(identifier: str) -> list[str]:
    """`HTTPRetry_policy.getValue` -> ['http', 'retry', 'policy', 'get', 'value']."""
    words: list[str] = []
    for chunk in _NON_WORD.split(identifier):
        if chunk:
            words.extend(w.lower() for w in _CAMEL_BOUNDARY.split(chunk) if w)
    return words


def unit_text(unit: UnitParts, style: str = "default", *, include_path: bool = True) -> str:
    """`include_path` is off for snippet corpora, whose file names are ids, not words."""
    if style == "code":
        return unit.code[:MAX_CHARS]
    if style not in STYLES:
        raise ValueError(f"unknown embed text style {style!r}; choose from {STYLES}")
    path_words = " ".join(identifier_words(unit.path.removesuffix(".py"))) if include_path else ""
    name_words = " ".join(identifier_words(unit.qualname))
    header = f"{name_words} ({path_words})" if path_words else name_words
    docstring = unit.docstring.strip() if style == "default" else ""
    parts = [header, docstring, unit.code]
    return "\n".join(p for p in parts if p)[:MAX_CHARS]
