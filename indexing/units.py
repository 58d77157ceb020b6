"""What parsing makes of a file, whatever its language: `ParsedUnit`s in a `ParsedFile`.

Shared by the Python walker (indexing.python_units), the walker for the other code languages
(indexing.code_units) and the text formats (indexing.text_units); `indexing.parsing` re-exports
all of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

FUNCTION = "function"
METHOD = "method"
CLASS = "class"
MODULE = "module"  # module-level code between definitions (indexing.module_blocks)
SECTION = "section"  # a part of a documentation or configuration file (heading or key)
UNIT_KINDS = (FUNCTION, METHOD, CLASS, MODULE, SECTION)


@dataclass(frozen=True)
class ParsedUnit:
    kind: str
    name: str
    qualname: str
    start_line: int  # 1-based, decorators included
    end_line: int  # 1-based, inclusive
    signature: str
    docstring: str
    code: str
    parent_qualname: str = ""
    class_name: str = ""  # the class that encloses a method (or nested class), if any
    class_summary: str = ""  # the first sentence of that class's docstring
    decorators: tuple[str, ...] = ()
    is_async: bool = False
    # Names the unit binds where it stands: its own name, or a module block's assigned names.
    defines: tuple[str, ...] = ()


@dataclass
class ParsedFile:
    units: list[ParsedUnit] = field(default_factory=list)
    has_errors: bool = False
    error_lines: list[int] = field(default_factory=list)
    decoded_with_replacement: bool = False
    module_summary: str = ""  # the first sentence of the module's docstring
    language: str = "python"  # the file's language or format (indexing.languages)
    # Why the file could not be read at all (a parser's failure on a hostile file); its run
    # goes on without its units and says so in the file's warning.
    failure: str = ""


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`'\"])\.(\s|$)")
SUMMARY_CHARS = 200


def summary_line(docstring: str, limit: int | None = SUMMARY_CHARS) -> str:
    """The first sentence of a docstring's first paragraph, on one line: what a reader takes in
    at a glance, and what a class or module lends its members as context."""
    paragraph = " ".join(docstring.strip().split("\n\n", 1)[0].split())
    match = _SENTENCE_END.search(paragraph)
    return (paragraph[: match.start()] if match else paragraph)[:limit].strip().rstrip(".:")


def error_nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
            continue
        stack.extend(c for c in node.children if c.has_error or c.is_error or c.is_missing)


def error_lines(root: Node, limit: int = 20) -> list[int]:
    """The first lines (1-based) where tree-sitter found a syntax error."""
    return sorted({n.start_point[0] + 1 for n in error_nodes(root)})[:limit]
