"""What a language's definition query finds in a tree, and how the definitions nest.

The query (tags.scm style, indexing.languages) is compiled once per process, with the patterns
that find no definition switched off. `captures` reads one tree's matches:
the definitions (`Definition`) and the names constants and variables bind;
`nest` puts the definitions in file order, each with its enclosing one, and merges the clauses
of one function where the language says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from indexing.languages import FUNCTION_KINDS, TYPE_KINDS, LanguageSpec

_GENERIC_TAIL = re.compile(r"[<\[(].*$", re.DOTALL)
# A member named by a number (`1(key) {...}` in an object literal of messages) is data, not a
# definition anyone searches for by name: it stays in the block around it.
_NUMBER_NAME = re.compile(r"[\d_.]+|0[xXbBoO][\da-fA-F_]+")


@dataclass(frozen=True)
class _Compiled:
    query: Query
    definition_captures: frozenset[str]


@cache
def _compiled(spec: LanguageSpec) -> _Compiled:
    """The language's query, compiled once; patterns that find no definition (tags.scm's
    references to calls and types, its doc captures) are switched off: nothing reads who calls
    what, and matching every call of a file cost a sixth of its parse."""
    text = spec.query_text()
    query = Query(spec.language(), text)
    raw = text.encode("utf-8")
    for index in range(query.pattern_count):
        pattern = raw[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)]
        if b"@definition." not in pattern:
            query.disable_pattern(index)
    names = {query.capture_name(i) for i in range(query.capture_count)}
    for name in ("doc", "ignore", "local.scope"):
        if name in names:
            query.disable_capture(name)
    return _Compiled(query, frozenset(c for c in names if c.startswith("definition.")))


@dataclass(eq=False)
class Definition:
    """One definition the query found, and what the extractor learns of it on the way."""

    node: Node
    label: str  # the capture's kind: class, function, method, module, constant...
    name: str
    scope: list[str]  # from a @scope capture
    arguments: Node | None
    start: int = 0  # bytes of the outer node (wrappers included); end grows when merged
    end: int = 0
    outer: Node | None = None
    parent: Definition | None = None
    last_child: Definition | None = None
    is_type: bool = False
    clauses: int = 1
    attached: tuple | None = None  # what attached found, once asked


def captures(root: Node, source: bytes, spec: LanguageSpec):
    """The definitions the query finds under `root` (unnested) and the (line, name) of each
    constant or variable bound, in order."""
    compiled = _compiled(spec)
    found: dict[int, Definition] = {}
    binders: list[tuple[int, str]] = []  # (line, name) of constants and variables
    for _, captured in QueryCursor(compiled.query).matches(root):
        names = captured.get("name")
        key = next((k for k in captured if k in compiled.definition_captures), None)
        if key is None:
            continue
        node = captured[key][0]
        if node.type in spec.ignore_types:
            continue
        label = key.removeprefix("definition.")
        if label not in TYPE_KINDS and label not in FUNCTION_KINDS:
            if names:
                binders.append((node.start_point[0], node_text(names[0], source)))
            continue
        name = _clean_name(node_text(names[0], source)) if names else _fallback_name(node, source)
        if names and _NUMBER_NAME.fullmatch(name):
            continue
        scope = [
            part
            for scope_node in captured.get("scope", ())
            for part in re.split(r"::|\.|:", _clean_name(node_text(scope_node, source)))
            if part
        ]
        arguments = (captured.get("arguments") or [None])[0]
        known = found.get(node.id)
        if known is None:
            found[node.id] = Definition(node, label, name, scope, arguments)
        else:  # two patterns found it: keep what either knows
            known.scope = known.scope or scope
            known.arguments = known.arguments or arguments
    return list(found.values()), binders


def nest(definitions: list[Definition], spec: LanguageSpec) -> list[Definition]:
    """Definitions in file order, each with its enclosing definition; clauses of one function
    (Haskell equations, Elixir `def` heads) merged where the language says so."""
    for definition in definitions:
        outer = definition.node
        while outer.parent is not None and outer.parent.type in spec.wrapper_types:
            outer = outer.parent
        definition.outer = outer
        definition.start, definition.end = outer.start_byte, outer.end_byte
        definition.is_type = definition.label in TYPE_KINDS
        if spec.arity_suffix and not definition.is_type:
            arity = len(definition.arguments.named_children) if definition.arguments else 0
            definition.name = f"{definition.name}/{arity}"
    definitions.sort(key=lambda d: (d.start, -d.end, not d.is_type))
    kept: list[Definition] = []
    open_: list[Definition] = []
    root_last: list[Definition | None] = [None]
    for definition in definitions:
        while open_ and open_[-1].end <= definition.start:
            open_.pop()
        # Nested in an identical range (a typedef's struct) counts as inside it.
        parent = open_[-1] if open_ and definition.end <= open_[-1].end else None
        previous = parent.last_child if parent is not None else root_last[0]
        if (
            spec.merge_clauses
            and previous is not None
            and not definition.is_type
            and not previous.is_type
            and previous.name == definition.name
        ):
            previous.end = max(previous.end, definition.end)
            previous.clauses += 1
            open_.append(previous)
            continue
        definition.parent = parent
        if parent is not None:
            parent.last_child = definition
        else:
            root_last[0] = definition
        kept.append(definition)
        open_.append(definition)
    return kept


def definition_end_row(definition: Definition, source: bytes) -> int:
    """The last row of a definition (of its last clause, where clauses were merged)."""
    end = definition.end
    row = source.count(b"\n", 0, end) if definition.clauses > 1 else definition.outer.end_point[0]
    if end > 0 and source[end - 1 : end] == b"\n":  # a node that ends with its newline
        row -= 1
    return row


def node_text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _clean_name(text: str) -> str:
    """`*Router` -> Router, `Foo<T>` -> Foo, `impl<T> Display for Foo<T>` is given as `Foo<T>`."""
    text = " ".join(text.split())
    text = _GENERIC_TAIL.sub("", text).strip("*&^ ")
    return text.split(" ")[-1] if " " in text else text or "<anonymous>"


def _fallback_name(node: Node, source: bytes) -> str:
    """A name for a definition its query gives none (a Kotlin companion object, a Zig test)."""
    for child in node.named_children:
        if child.type in ("string", "string_literal", "identifier", "type_identifier"):
            return node_text(child, source).strip("\"'") or node.type
    return {"companion_object": "Companion"}.get(node.type, node.type)
