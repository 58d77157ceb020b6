"""The names a file's units call, found by one tree-sitter query over the whole file.

A unit's calls are `f(...)` -> f and `a.b.c(...)` -> c in its body, in the order a reader meets
them, calls inside nested definitions left to those. Walking each body node by node in Python
took a third of the parse; the query walks the tree in C, and each call is given to the
innermost definition around it in one sweep.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from functools import cache

import tree_sitter_python
from tree_sitter import Language, Node, Query, QueryCursor

_QUERY = """
(call function: (identifier) @name) @call
(call function: (attribute attribute: (identifier) @name)) @call
[(function_definition) (class_definition) (decorated_definition)] @definition
"""


@cache
def _query() -> Query:
    return Query(Language(tree_sitter_python.language()), _QUERY)


def innermost(spans: list[tuple], items: list[tuple]) -> defaultdict:
    """Each item `(start, end, ...)` to the innermost span `(start, end, key)` around it, by key
    (None: no span holds it), in one sweep. Both lists sorted by start, a span that encloses
    another before it: the order of a walk."""
    owned: defaultdict = defaultdict(list)
    open_: list[tuple[int, object]] = []  # (end, key) of the spans around the sweep
    upcoming = iter(spans)
    following = next(upcoming, None)
    for item in items:
        start, end = item[0], item[1]
        while following is not None and following[0] <= start:
            while open_ and open_[-1][0] <= following[0]:
                open_.pop()
            open_.append((following[1], following[2]))
            following = next(upcoming, None)
        while open_ and open_[-1][0] < end:
            open_.pop()
        owned[open_[-1][1] if open_ else None].append(item)
    return owned


class CallNames:
    """The calls of one parsed file, ready to be handed to its units."""

    def __init__(self, root: Node, source: bytes) -> None:
        definitions: list[tuple[int, int, int]] = []  # start, end, node id
        calls: list[tuple[int, int, str]] = []  # the call's start and end, the called name
        for _, captured in QueryCursor(_query()).matches(root):
            if "definition" in captured:
                node = captured["definition"][0]
                definitions.append((node.start_byte, node.end_byte, node.id))
            else:
                call, name = captured["call"][0], captured["name"][0]
                text = source[name.start_byte : name.end_byte].decode("utf-8", errors="replace")
                calls.append((call.start_byte, call.end_byte, text))
        # Document order, an enclosing node before what it encloses: the order of a walk.
        definitions.sort(key=lambda d: (d[0], -d[1]))
        calls.sort(key=lambda c: (c[0], -c[1]))
        self._calls = calls
        self._starts = [start for start, _, _ in calls]
        self._owned = innermost(definitions, calls)

    def of_definition(self, definition: Node, body: Node | None) -> tuple[str, ...]:
        """A function's or class's calls: in its body, outside the definitions in it."""
        if body is None:
            return ()
        return _distinct(
            name
            for start, end, name in self._owned.get(definition.id, ())
            if start >= body.start_byte and end <= body.end_byte
        )

    def within(self, node: Node) -> tuple[str, ...]:
        """Every call inside `node` (a lambda, which holds no definition)."""
        first = bisect_left(self._starts, node.start_byte)
        names = []
        for start, end, name in self._calls[first:]:
            if start >= node.end_byte:
                break
            if end <= node.end_byte:
                names.append(name)
        return _distinct(names)


def _distinct(names) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
