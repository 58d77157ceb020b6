"""Definitions a grammar loses to a syntax error, found again by parsing the file in pieces.

One construct a grammar does not know (an extglob pattern inside a bash string, a TypeScript
call signature with a comment between its overloads) can throw tree-sitter off for the rest
of the file: everything after it lands in ERROR nodes or in a string that never closes, and the
definitions there are never seen. The stretches of such a file that no sound definition covers
and that hold a syntax error are cut where a definition may start (the language's
`definition_starts`), and each piece is parsed on its own with the same grammar, so that an
error stays inside its piece. A piece is parsed over the whole source limited to its byte range
(tree-sitter's included ranges), so its nodes carry the file's own rows and byte offsets.

Language-neutral: the pieces, the rows and the trees; which definitions a piece holds is the
language's definition query (indexing.code_definitions), run on each piece's tree as on the
whole file's. `recover` is what the extractor (indexing.code_units) calls.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node, Parser, Range, Tree

from indexing.code_comments import attached, doc_above
from indexing.code_definitions import Definition, captures, definition_end_row, nest
from indexing.languages import LanguageSpec


def inside_error(node: Node) -> bool:
    """Whether an ERROR node (other than the root: a tree whose root is ERROR still holds
    sound definitions beside the damage) encloses `node`: what is found there is guesswork."""
    parent = node.parent
    while parent is not None and parent.parent is not None:
        if parent.is_error:
            return True
        parent = parent.parent
    return False


def error_rows(root: Node) -> set[int]:
    """The rows where a syntax error starts or ends (ERROR nodes, missing tokens), the errors
    inside ERROR nodes included, and the stray tokens an ERROR node holds (a `(` or `{` the
    grammar could not place)."""
    rows: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            rows.add(node.start_point[0])
            continue
        if node.is_error:
            if node.parent is not None:
                rows.update((node.start_point[0], node.end_point[0]))
            rows.update(child.start_point[0] for child in node.children if not child.is_named)
        stack.extend(child for child in node.children if child.has_error)
    return rows


def damaged_stretches(
    covered: list[bool], errors: Iterable[int], first_row: int, last_row: int
) -> list[tuple[int, int]]:
    """The maximal runs of rows between `first_row` and `last_row` that no sound definition
    covers and that hold an error (first and last row, inclusive)."""
    stretches: list[tuple[int, int]] = []
    for row in sorted(errors):
        if not first_row <= row <= last_row or covered[row]:
            continue
        if stretches and stretches[-1][0] <= row <= stretches[-1][1]:
            continue
        first = row
        while first > first_row and not covered[first - 1]:
            first -= 1
        last = row
        while last < last_row and not covered[last + 1]:
            last += 1
        stretches.append((first, last))
    return stretches


@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text, re.MULTILINE)


def split_rows(lines: list[str], first: int, last: int, starts: str) -> list[int]:
    """The rows of the stretch where a definition starts, at the stretch's outermost
    indentation (a function nested in a lost one stays in its piece)."""
    text = "\n".join(lines[first : last + 1])
    rows: list[int] = []
    row, scanned = first, 0
    for match in _pattern(starts).finditer(text):
        row += text.count("\n", scanned, match.start())
        scanned = match.start()
        if not rows or rows[-1] != row:
            rows.append(row)
    if not rows:
        return []
    depth = min(_indent(lines[row]) for row in rows)
    return [row for row in rows if _indent(lines[row]) == depth]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@dataclass(frozen=True)
class LineSpan:
    """Stands in for the node of a definition the grammar cannot parse even on its own (a bash
    function whose `[[ =~ ]]` regex it does not know): the rows from its first line to the
    closing line at the same indentation, with what the extractor reads of a node."""

    start_byte: int
    end_byte: int
    start_point: tuple[int, int]
    end_point: tuple[int, int]
    text: bytes
    type: str = "ERROR"
    is_error: bool = True
    has_error: bool = False  # it ends at its own closing line: it swallows nothing
    parent: None = None
    prev_named_sibling: None = None
    children: tuple = ()
    named_children: tuple = ()

    def child_by_field_name(self, _name: str) -> None:
        return None


def unparsed_definition(
    lines: list[str], source: bytes, offsets: list[int], first: int, last: int, starts: str
) -> tuple[str, str, LineSpan] | None:
    """(kind, name, span) of the definition opening row `first`: named by the language's
    `definition_starts` (its group `function` or `type`, or `function2`...), down to the first
    line within `last` that closes it (`}` or `end` at its indentation); None where either is
    missing."""
    match = _pattern(starts).match(lines[first])
    if match is None:
        return None
    named = ((key, value) for key, value in match.groupdict().items() if value)
    kind, name = next(named, ("", ""))
    kind = kind.rstrip("_0123456789")  # `function2`: one name cannot be two groups
    if kind not in ("function", "type"):
        return None
    depth = _indent(lines[first])
    for row in range(first + 1, last + 1):
        line = lines[row]
        closing = line.strip()
        if (closing.startswith("}") or closing == "end") and _indent(line) == depth:
            start, end = offsets[first], offsets[row] + len(line.rstrip().encode("utf-8"))
            point = (row, end - offsets[row])
            span = LineSpan(start, end, (first, 0), point, source[start:end])
            return kind, name, span
    return None


def parse_piece(parser: Parser, source: bytes, offsets: list[int], first: int, last: int) -> Tree:
    """Rows `first`..`last` of `source` parsed on their own (`offsets`: each row's first
    byte, and the end of the source after the last)."""
    end = offsets[last + 1]
    end_point = (last + 1, 0) if last + 1 < len(offsets) - 1 else (last, end - offsets[last])
    parser.included_ranges = [Range((first, 0), end_point, offsets[first], end)]
    return parser.parse(source)


def row_offsets(source: bytes) -> list[int]:
    """Each row's first byte in `source`, then the length of the source."""
    offsets = [0]
    find = source.find
    position = find(b"\n")
    while position >= 0:
        offsets.append(position + 1)
        position = find(b"\n", position + 1)
    offsets.append(len(source))
    return offsets


# The recovery itself: which stretches are damaged, where they are cut, and which of the
# definitions found twice (by the whole parse and by a piece's) are kept.


@cache
def _piece_parser(spec: LanguageSpec) -> Parser:
    """A second parser, whose included ranges change for each piece of a damaged file."""
    return Parser(spec.language())


MAX_RECOVERY_DEPTH = 3  # pieces of pieces: a lost `if` block's functions, one level in


def recover(root: Node, source: bytes, lines: list[str], spec: LanguageSpec, found: tuple):
    """The definitions and names bound of a file with syntax errors, where each stretch
    that no sound definition covers and that holds an error is parsed again in pieces; what the
    whole parse found inside a piece gives way to what the pieces find. No recovered unit
    overlaps another, so every row stays in one unit."""
    offsets = row_offsets(source)
    covered = [False] * len(lines)
    return _Recovery(source, lines, spec, offsets, covered).run(root, found, 0, len(lines) - 1, 0)


@dataclass
class _Recovery:
    source: bytes
    lines: list[str]
    spec: LanguageSpec
    offsets: list[int]
    covered: list[bool]  # rows some kept top-level definition spans

    def run(self, root: Node, found: tuple, first: int, last: int, depth: int):
        """What rows `first`..`last` (the file, or one piece) define, `root` their tree."""
        definitions, binders = found
        claimed: set[int] = set()
        for definition in definitions:
            sound = definition.parent is None and not inside_error(definition.outer)
            if sound and not self.swallows(definition) and self.cover(definition, force=depth == 0):
                claimed.add(id(definition))
        pieces = []
        if depth < MAX_RECOVERY_DEPTH:
            stretches = damaged_stretches(self.covered, error_rows(root), first, last)
            pieces = _pieces(self.lines, self.spec, stretches)
        offsets = self.offsets
        bounds = [offset for top, end in pieces for offset in (offsets[top], offsets[end + 1])]

        def in_pieces(start: int, end: int) -> bool:
            """Whether bytes start..end reach into a piece (`bounds`: their starts and ends)."""
            index = bisect_right(bounds, start)
            return index % 2 == 1 or (index < len(bounds) and bounds[index] < end)

        dropped: set[int] = set()
        kept: list[Definition] = []
        for definition in definitions:  # a parent before its children
            parent = definition.parent
            if parent is not None:
                lost = id(parent) in dropped
            elif id(definition) in claimed:
                lost = False
            elif in_pieces(definition.start, definition.end):
                lost = True
            else:  # the whole file's guesses stay where nothing better is found
                lost = depth > 0 and inside_error(definition.outer)
                lost = lost or not self.cover(definition, force=depth == 0)
            if lost:
                dropped.add(id(definition))
            else:
                kept.append(definition)
        if not pieces:
            return kept, binders
        binders = [b for b in binders if not in_pieces(offsets[b[0]], offsets[b[0]] + 1)]
        for top, end in pieces:
            piece = self.piece(top, end)
            more, piece_binders = self.run(*piece, top, end, depth + 1)
            kept += more
            binders += piece_binders
        kept.sort(key=lambda d: (d.start, -d.end, not d.is_type))
        return kept, binders

    def piece(self, first: int, last: int):
        """Rows `first`..`last` parsed on their own: the tree and what the query finds; where
        the grammar cannot parse the definition that opens the piece, the one its line names."""
        parser = _piece_parser(self.spec)
        root = parse_piece(parser, self.source, self.offsets, first, last).root_node
        parser.included_ranges = []
        definitions, binders = captures(root, self.source, self.spec)
        if root.has_error and not any(
            d.node.start_point[0] == first and not inside_error(d.node) for d in definitions
        ):
            lost = unparsed_definition(
                self.lines, self.source, self.offsets, first, last, self.spec.definition_starts
            )
            if lost is not None:
                # What the query guessed inside the broken definition is no better than it.
                definitions = [d for d in definitions if not inside_error(d.node)]
                kind, name, span = lost
                label = "class" if kind == "type" else "function"
                definitions.append(Definition(span, label, name, [], None))  # type: ignore[arg-type]
        return root, (nest(definitions, self.spec), binders)

    def swallows(self, definition: Definition) -> bool:
        """Whether a definition with an error inside runs over lines where a definition at its
        own depth starts: the error made it swallow its neighbours (an interface the grammar
        cannot close takes the rest of the file)."""
        outer = definition.outer
        if not outer.has_error:
            return False
        first, last = outer.start_point[0], outer.end_point[0]
        rows = split_rows(self.lines, first + 1, last, self.spec.definition_starts)
        depth = len(self.lines[first]) - len(self.lines[first].lstrip())
        return any(len(self.lines[r]) - len(self.lines[r].lstrip()) <= depth for r in rows)

    def cover(self, definition: Definition, *, force: bool = False) -> bool:
        """Marks a top-level definition's rows (its doc comment and attributes included) as
        covered; False, marking nothing, where one of them already is (unless `force`)."""
        first = attached(definition, self.lines, self.spec)[0]
        last = min(definition_end_row(definition, self.source), len(self.covered) - 1)
        if not force and any(self.covered[first : last + 1]):
            return False
        self.covered[first : last + 1] = [True] * (last + 1 - first)
        return True


def _pieces(lines: list[str], spec: LanguageSpec, stretches) -> list[tuple[int, int]]:
    """Each damaged stretch cut where a definition starts: (first row, last row) of each piece
    from such a row on; a piece ends above the next one's doc comment."""
    pieces: list[tuple[int, int]] = []
    for first, last in stretches:
        rows = split_rows(lines, first, last, spec.definition_starts)
        if not rows:
            continue
        for row, following in zip(rows, [*rows[1:], None], strict=True):
            end = last
            if following is not None:
                doc = doc_above(lines, following, spec)
                end = (doc[0] if doc and doc[0] > row else following) - 1
            pieces.append((row, end))
    return pieces
