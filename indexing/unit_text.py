"""The texts that are embedded for a unit, one per vector field: pure functions of its parts.

- `code`: the unit's source as written (signature, docstring and body). Plain MiniLM over this
  text is the baseline every ranking change is measured against.
- `header`: what a reader scans before the body: the kind, the qualified name spelled out as
  words (the class's name included), where it lives, and the signature. Measured on the dev
  packages, this text alone ranks the answer first 12 points more often than plain MiniLM over
  the source; adding the docstring took most of that away (it duplicates the code field), and
  adding the first sentences of the class's and module's docstrings changed nothing (0.455 vs
  0.456 Success@1), so neither is in it. See `search.ranking.features` for why no ranking
  signal may depend on whether a unit has a docstring.

Which fields exist and what goes into them was chosen on the dev sets (docs/BENCHMARKS.md,
"How fast mode was designed"). The embedder cuts texts at its own word-piece limit; texts are
cut at `MAX_CHARS` first because nothing past that survives the cut anyway.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

MAX_CHARS = 3000
# Names what the functions below produce; bump it when a field's text changes, so that caches
# keyed on it (evaluation corpora) are rebuilt. The vector cache is keyed on the text itself.
TEXT_VERSION = "fields-2"

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


class UnitParts(Protocol):
    kind: str
    path: str
    qualname: str
    signature: str
    docstring: str
    code: str
    class_name: str
    class_summary: str
    module_summary: str


def identifier_words(identifier: str) -> list[str]:
    """`HTTPRetry_policy.getValue` -> ['http', 'retry', 'policy', 'get', 'value']."""
    words: list[str] = []
    for chunk in _NON_WORD.split(identifier):
        if chunk:
            words.extend(w.lower() for w in _CAMEL_BOUNDARY.split(chunk) if w)
    return words


def path_text(path: str) -> str:
    """The path as its words should be read: without the file's extension, which names the
    language and says nothing of the topic (`bins/bins.go` -> `bins/bins`). A `.pyi` stub
    keeps it, as it always did (Python's tokens stay what the ranker was fitted on)."""
    if path.endswith(".py"):
        return path[:-3]
    name_start = path.rfind("/") + 1
    dot = path.rfind(".")
    if dot > name_start and not path.endswith(".pyi"):  # `.bashrc`: a name, not an extension
        return path[:dot]
    return path


def file_suffix(path: str) -> str:
    """The file's extension with its dot, as `PurePosixPath.suffix` says it (`.py`; "" for
    `Makefile` or `.bashrc`), without building a path object (asked of every candidate)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def folders(path: str) -> list[str]:
    """The folder names above the file, as `PurePosixPath.parts[:-1]` lists them (less a
    leading root)."""
    return [part for part in path.split("/")[:-1] if part and part != "."]


def file_stem(path: str) -> str:
    """The file's name without its extension (`__init__`, `index`, `Makefile`)."""
    return path_text(path.rsplit("/", 1)[-1])


def code_text(unit: UnitParts) -> str:
    """The code field: the unit's source as written."""
    return unit.code[:MAX_CHARS]


def header_text(
    unit: UnitParts, *, include_path: bool = True, context: bool = False, docstring: bool = False
) -> str:
    """The header field. `include_path` is off for snippet corpora, whose file names are ids;
    `context` and `docstring` exist for the measurements that chose the defaults."""
    name = " ".join(identifier_words(unit.qualname))
    lines = [f"{unit.kind} {name}"]
    if include_path:
        lines[0] += f" in {' '.join(identifier_words(path_text(unit.path)))}"
    if context and unit.class_summary:
        lines.append(f"{' '.join(identifier_words(unit.class_name))}: {unit.class_summary}")
    if context and unit.module_summary:
        lines.append(f"module: {unit.module_summary}")
    lines.append(unit.signature)
    if docstring and unit.docstring.strip():
        lines.append(unit.docstring.strip())
    return "\n".join(lines)[:MAX_CHARS]


def field_texts(units: Sequence[UnitParts], *, include_path: bool = True) -> dict[str, list[str]]:
    """Every field's texts for `units`, in order: the vector store keeps one vector per field."""
    return {
        "code": [code_text(u) for u in units],
        "header": [header_text(u, include_path=include_path) for u in units],
    }
