"""Source in any code language of indexing.languages -> code units, by one routine.

The language's definition query (tags.scm style) finds the definitions; everything else is
the same for every language:
- nesting by byte range gives qualnames (`Cart.addItem`, `Bucket::take`), and a function
  directly inside a type is a method; a `@scope` capture qualifies definitions written outside
  their type (Go receivers, C++ `Foo::bar`, Lua `Timer.new`);
- a unit's span starts at its doc comment and at the attributes, decorators or signatures
  attached above it, as a Python unit's starts at its decorators;
- doc comments are read from the source lines right above (no blank line between), with the
  language's markers (`/**`, `///`, `#`, `-- |`...) taken off;
- the code between top-level definitions (imports, constants, top-level statements) becomes
  module blocks of at most MAX_BLOCK_LINES lines, so every non-blank line is in some unit;
- where a syntax error threw the grammar off, the damaged stretch is parsed again in pieces
  (indexing.parse_recovery) and the definitions found there join the others.

Everything is iterative (no recursion over the tree), and each query is compiled once per
process.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import cache
from pathlib import PurePosixPath

from tree_sitter import Node, Parser, Query, QueryCursor

from indexing.languages import FUNCTION_KINDS, TYPE_KINDS, LanguageSpec
from indexing.parse_recovery import (
    damaged_stretches,
    error_rows,
    inside_error,
    parse_piece,
    row_offsets,
    split_rows,
    unparsed_definition,
)
from indexing.units import (
    CLASS,
    FUNCTION,
    METHOD,
    MODULE,
    ParsedFile,
    ParsedUnit,
    error_lines,
    summary_line,
)

MAX_BLOCK_LINES = 30  # as indexing.module_blocks: a block fits the embedder's window
SIGNATURE_CHARS = 400
# Node types that hold a definition's body when the grammar names no `body` field.
_BODY_TYPES = frozenset(
    {
        "block",
        "compound_statement",
        "function_body",
        "class_body",
        "declaration_list",
        "field_declaration_list",
        "do_block",
        "enum_body",
        "enum_class_body",
        "interface_body",
        "protocol_body",
        "statement_block",
        "template_body",
        "body_statement",
        "object_body",
        "struct_declaration",
    }
)
_BLOCK_OPENERS = ("/**", "/*!", "/*", "{-|", "{-", "--[[")
_BLOCK_CLOSERS = ("*/", "-}", "]]")
_LINE_MARKERS = ("///", "//!", "//", "-- |", "--|", "-- ^", "---", "--", "#!", "#")
_XML_TAG = re.compile(r"</?(summary|remarks|para|returns|value|example|c|code)\s*>")
_GENERIC_TAIL = re.compile(r"[<\[(].*$", re.DOTALL)
# A member named by a number (`1(key) {...}` in an object literal of messages) is data, not a
# definition anyone searches for by name: it stays in the block around it.
_NUMBER_NAME = re.compile(r"[\d_.]+|0[xXbBoO][\da-fA-F_]+")
_LICENCE = re.compile(r"copyright|licen[cs]e|spdx|generated|-\*-|frozen_string_literal", re.I)


@dataclass(frozen=True)
class _Compiled:
    query: Query
    definition_captures: frozenset[str]


@cache
def _parser(spec: LanguageSpec) -> Parser:
    return Parser(spec.language())


@cache
def _piece_parser(spec: LanguageSpec) -> Parser:
    """A second parser, whose included ranges change for each piece of a damaged file."""
    return Parser(spec.language())


@cache
def _compiled(spec: LanguageSpec) -> _Compiled:
    """The language's query, compiled once; patterns that find neither a definition nor a
    call (tags.scm's references to types, its doc captures) are switched off."""
    text = spec.query_text()
    query = Query(spec.language(), text)
    raw = text.encode("utf-8")
    own_start = len(raw) - len(spec.query.encode("utf-8"))
    for index in range(query.pattern_count):
        start = query.start_byte_for_pattern(index)
        pattern = raw[start : query.end_byte_for_pattern(index)]
        wanted = b"@definition." in pattern or (
            b"@reference.call" in pattern and (spec.wheel_calls or start >= own_start)
        )
        if not wanted:
            query.disable_pattern(index)
    captures = {query.capture_name(i) for i in range(query.capture_count)}
    for name in ("doc", "ignore", "local.scope"):
        if name in captures:
            query.disable_capture(name)
    return _Compiled(query, frozenset(c for c in captures if c.startswith("definition.")))


@dataclass(eq=False)
class _Def:
    node: Node
    label: str  # the capture's kind: class, function, method, module, constant...
    name: str
    scope: list[str]  # from a @scope capture
    arguments: Node | None
    start: int = 0  # bytes of the outer node (wrappers included); end grows when merged
    end: int = 0
    outer: Node | None = None
    parent: _Def | None = None
    last_child: _Def | None = None
    is_type: bool = False
    clauses: int = 1
    attached: tuple | None = None  # what _attached found, once asked


def parse_code(source: bytes, spec: LanguageSpec, *, path: str = "") -> ParsedFile:
    """Every definition the language's query finds in `source`, in file order (a unit before
    the units inside it), then the module blocks between the top-level ones."""
    result = ParsedFile(language=spec.name)
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        result.decoded_with_replacement = True
        text = source.decode("utf-8", errors="replace")
    root = _parser(spec).parse(source).root_node
    if root.has_error:
        result.has_errors = True
        result.error_lines = error_lines(root)
    lines = text.split("\n")
    definitions, binders, calls = _captures(root, source, spec)
    definitions = _nest(definitions, spec)
    if root.has_error and spec.definition_starts:
        found = (definitions, binders, calls)
        definitions, binders, calls = _recover(root, source, lines, spec, found)
    units = _Units(source, lines, spec)
    for definition in definitions:
        units.add(definition)
    _assign_calls(units, calls)
    module_doc, module_doc_lines = _module_doc(lines, spec, units.first_lines)
    if not module_doc:
        module_doc = next((u.docstring for u in units.made if u.kind == CLASS), "")
        module_doc = module_doc if spec.body_doc_attributes else ""
    result.module_summary = summary_line(module_doc)
    result.units = units.made + _module_units(
        lines, units, binders, spec, path=path, doc=module_doc, doc_lines=module_doc_lines
    )
    return result


def _captures(root: Node, source: bytes, spec: LanguageSpec):
    compiled = _compiled(spec)
    found: dict[int, _Def] = {}
    binders: list[tuple[int, str]] = []  # (line, name) of constants and variables
    calls: list[tuple[int, int, str]] = []
    call_nodes: list[int] = []
    heads: set[int] = set()  # a definition's own head, when the grammar makes it a call
    for _, captured in QueryCursor(compiled.query).matches(root):
        names = captured.get("name")
        if "reference.call" in captured:
            node = captured["reference.call"][0]
            # An attribute's operand (Elixir `@doc "..."`) is no call.
            if names and not (node.parent is not None and node.parent.type == "unary_operator"):
                calls.append((node.start_byte, node.end_byte, _node_text(names[0], source)))
                call_nodes.append(node.id)
            continue
        key = next((k for k in captured if k in compiled.definition_captures), None)
        if key is None:
            continue
        node = captured[key][0]
        if node.type in spec.ignore_types:
            continue
        label = key.removeprefix("definition.")
        if label not in TYPE_KINDS and label not in FUNCTION_KINDS:
            if names:
                binders.append((node.start_point[0], _node_text(names[0], source)))
            continue
        name = _clean_name(_node_text(names[0], source)) if names else _fallback_name(node, source)
        if names and _NUMBER_NAME.fullmatch(name):
            continue
        scope = [
            part
            for scope_node in captured.get("scope", ())
            for part in re.split(r"::|\.|:", _clean_name(_node_text(scope_node, source)))
            if part
        ]
        arguments = (captured.get("arguments") or [None])[0]
        if names and names[0].parent is not None:
            heads.add(names[0].parent.id)
        known = found.get(node.id)
        if known is None:
            found[node.id] = _Def(node, label, name, scope, arguments)
        else:  # two patterns found it: keep what either knows
            known.scope = known.scope or scope
            known.arguments = known.arguments or arguments
    calls = sorted(c for c, node_id in zip(calls, call_nodes, strict=True) if node_id not in heads)
    return list(found.values()), binders, calls


MAX_RECOVERY_DEPTH = 3  # pieces of pieces: a lost `if` block's functions, one level in


def _recover(root: Node, source: bytes, lines: list[str], spec: LanguageSpec, found: tuple):
    """The definitions, names bound and calls of a file with syntax errors, where each stretch
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
        definitions, binders, calls = found
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
        kept: list[_Def] = []
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
            return kept, binders, calls
        binders = [b for b in binders if not in_pieces(offsets[b[0]], offsets[b[0]] + 1)]
        calls = [call for call in calls if not in_pieces(call[0], call[0] + 1)]
        for top, end in pieces:
            piece = self.piece(top, end)
            more, piece_binders, piece_calls = self.run(*piece, top, end, depth + 1)
            kept += more
            binders += piece_binders
            calls += piece_calls
        kept.sort(key=lambda d: (d.start, -d.end, not d.is_type))
        return kept, binders, sorted(calls)

    def piece(self, first: int, last: int):
        """Rows `first`..`last` parsed on their own: the tree and what the query finds; where
        the grammar cannot parse the definition that opens the piece, the one its line names."""
        parser = _piece_parser(self.spec)
        root = parse_piece(parser, self.source, self.offsets, first, last).root_node
        parser.included_ranges = []
        definitions, binders, calls = _captures(root, self.source, self.spec)
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
                definitions.append(_Def(span, label, name, [], None))  # type: ignore[arg-type]
        return root, (_nest(definitions, self.spec), binders, calls)

    def swallows(self, definition: _Def) -> bool:
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

    def cover(self, definition: _Def, *, force: bool = False) -> bool:
        """Marks a top-level definition's rows (its doc comment and attributes included) as
        covered; False, marking nothing, where one of them already is (unless `force`)."""
        first = _attached(definition, self.lines, self.spec)[0]
        last = min(_end_row(definition, self.source), len(self.covered) - 1)
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
                doc = _doc_above(lines, following, spec)
                end = (doc[0] if doc and doc[0] > row else following) - 1
            pieces.append((row, end))
    return pieces


def _nest(definitions: list[_Def], spec: LanguageSpec) -> list[_Def]:
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
    kept: list[_Def] = []
    open_: list[_Def] = []
    root_last: list[_Def | None] = [None]
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


class _Units:
    """Turns definitions into units, keeping qualnames unique in the file."""

    def __init__(self, source: bytes, lines: list[str], spec: LanguageSpec) -> None:
        self.source, self.lines, self.spec = source, lines, spec
        self.made: list[ParsedUnit] = []
        self.spans: list[tuple[int, int, int]] = []  # byte start, end, index in made
        self.top_spans: list[tuple[int, int]] = []  # line spans of the top-level units
        self.first_lines: set[int] = set()  # 0-based first lines of the definitions
        self.taken: dict[str, int] = {}
        # id(_Def) -> its qualname's parts, before any `#2` suffix: a Rust `impl Bucket` is the
        # second unit named Bucket, and its methods are still `Bucket::take`.
        self.paths: dict[int, list[str]] = {}
        self.docs: dict[int, str] = {}

    def unique(self, qualname: str) -> str:
        self.taken[qualname] = self.taken.get(qualname, 0) + 1
        count = self.taken[qualname]
        return qualname if count == 1 else f"{qualname}#{count}"

    def add(self, definition: _Def) -> None:
        spec, source = self.spec, self.source
        parent = definition.parent
        path: list[str] = []
        if parent is not None:
            path = list(self.paths[id(parent)])
        path += definition.scope
        in_type = bool(definition.scope) or (parent is not None and parent.is_type)
        kind = CLASS if definition.is_type else (METHOD if in_type else FUNCTION)
        parent_qualname = spec.separator.join(path)
        qualname = self.unique(spec.separator.join([*path, definition.name]))
        self.paths[id(definition)] = [*path, definition.name]
        start_row, doc, decorators, signature_node = _attached(definition, self.lines, spec)
        if not doc and definition.is_type and spec.body_doc_attributes:
            doc = _body_doc(definition.node, source, spec)
        self.docs[id(definition)] = doc
        end_row = _end_row(definition, source)
        class_summary = ""
        class_name = ""
        if kind == METHOD or (kind == CLASS and parent is not None and parent.is_type):
            class_name = parent_qualname
            if parent is not None and not definition.scope:
                class_summary = summary_line(self.docs.get(id(parent), ""))
        node = definition.node
        self.first_lines.add(node.start_point[0])
        self.spans.append((definition.start, definition.end, len(self.made)))
        if parent is None:
            self.top_spans.append((start_row, end_row))
        self.made.append(
            ParsedUnit(
                kind=kind,
                name=definition.name,
                qualname=qualname,
                start_line=start_row + 1,
                end_line=end_row + 1,
                signature=_signature(definition, signature_node, source),
                docstring=doc,
                code=_code(self.lines, start_row, end_row),
                parent_qualname=parent_qualname,
                class_name=class_name,
                class_summary=class_summary,
                decorators=decorators,
                is_async=_is_async(node),
                defines=(definition.name,),
            )
        )


def _end_row(definition: _Def, source: bytes) -> int:
    end = definition.end
    row = source.count(b"\n", 0, end) if definition.clauses > 1 else definition.outer.end_point[0]
    if end > 0 and source[end - 1 : end] == b"\n":  # a node that ends with its newline
        row -= 1
    return row


def _attached(definition: _Def, lines: list[str], spec: LanguageSpec):
    """The first row of a definition's span (doc comment, attributes, signatures above it),
    its doc text, its decorators and a signature sibling (Haskell's `f :: a -> b`)."""
    if definition.attached is None:
        definition.attached = _find_attached(definition, lines, spec)
    return definition.attached


def _find_attached(definition: _Def, lines: list[str], spec: LanguageSpec):
    outer = definition.outer
    start_row = outer.start_point[0]
    doc = ""
    decorators: list[str] = []
    signature_node = None
    anchor = outer
    while True:
        found = _doc_above(lines, start_row, spec)
        if found is not None:
            start_row, text = found
            doc = doc or text
        sibling = anchor.prev_named_sibling
        while sibling is not None and sibling.type in spec.comment_types:
            if sibling.start_point[0] < start_row:
                break
            sibling = sibling.prev_named_sibling
        if sibling is None or sibling.end_point[0] < start_row - 1:
            break
        text = sibling.text.decode("utf-8", errors="replace") if sibling.text else ""
        if spec.doc_attributes and text.startswith(spec.doc_attributes):
            doc = doc or _attribute_doc(text, spec.doc_attributes)
        elif sibling.type in spec.attached_types or (
            spec.attached_prefixes and text.startswith(spec.attached_prefixes)
        ):
            if sibling.type == "signature":
                signature_node = sibling
            else:
                decorators.append(" ".join(text.lstrip("@#").split())[:200])
        else:
            break
        start_row = sibling.start_point[0]
        anchor = sibling
    return start_row, doc, tuple(reversed(decorators)), signature_node


def _doc_above(lines: list[str], row: int, spec: LanguageSpec) -> tuple[int, str] | None:
    """The doc comment ending on the line right above `row`: (its first row, its text)."""
    above = row - 1
    if above < 0:
        return None
    last = lines[above].strip()
    if spec.doc_blocks and last.endswith(_BLOCK_CLOSERS):
        first = above
        while first >= 0 and above - first < 400:
            if lines[first].lstrip().startswith(_BLOCK_OPENERS):
                break
            first -= 1
        if first < 0 or not lines[first].lstrip().startswith(spec.doc_blocks):
            return None
        if first != above and not lines[first].strip().startswith(_BLOCK_OPENERS):
            return None
        return first, _clean_comment(lines[first : above + 1])
    if not spec.doc_lines:
        return None
    markers = tuple(dict.fromkeys(re.match(r"[^\w\s|^]+", p).group() for p in spec.doc_lines))
    first = above
    while first >= 0 and lines[first].lstrip().startswith(markers):
        first -= 1
    group = range(first + 1, above + 1)
    for candidate in group:
        if lines[candidate].lstrip().startswith(spec.doc_lines):
            if lines[candidate].lstrip().startswith("#!"):
                continue  # a shebang is no doc
            return candidate, _clean_comment(lines[candidate : above + 1])
    return None


def _clean_comment(lines: list[str]) -> str:
    cleaned = []
    for raw in lines:
        line = raw.strip()
        for opener in _BLOCK_OPENERS:
            if line.startswith(opener):
                line = line[len(opener) :]
                break
        for closer in _BLOCK_CLOSERS:
            if line.endswith(closer):
                line = line[: -len(closer)]
                break
        line = line.rstrip()
        for marker in _LINE_MARKERS:
            if line.startswith(marker):
                line = line[len(marker) :]
                break
        else:
            if line.startswith("*"):
                line = line[1:]
        cleaned.append(line)
    text = textwrap.dedent("\n".join(cleaned))
    text = _XML_TAG.sub("", text)
    return "\n".join(line.rstrip() for line in text.strip().split("\n")).strip()


def _attribute_doc(text: str, prefixes: tuple[str, ...]) -> str:
    """`@doc \"\"\"...\"\"\"` -> its text; `@doc false` -> nothing."""
    for prefix in prefixes:
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
            break
    text = re.sub(r"^~[sS]", "", text)
    for quote in ('"""', "'''", '"'):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            return textwrap.dedent(text[len(quote) : -len(quote)]).strip()
    return ""


def _body_doc(node: Node, source: bytes, spec: LanguageSpec) -> str:
    """A doc attribute among the first statements of a type's body (`@moduledoc`)."""
    body = _body(node)
    if body is None:
        return ""
    for child in body.named_children[:3]:
        text = _node_text(child, source)
        if text.startswith(spec.body_doc_attributes):
            return _attribute_doc(text, spec.body_doc_attributes)
    return ""


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for child in node.children:
        if child.type in _BODY_TYPES:
            return child
    return None


def _signature(definition: _Def, signature_node: Node | None, source: bytes) -> str:
    if signature_node is not None:
        return " ".join(_node_text(signature_node, source).split())[:SIGNATURE_CHARS]
    outer = definition.outer
    body = _body(definition.node)
    if body is not None and body.start_byte > outer.start_byte:
        header = source[outer.start_byte : body.start_byte].decode("utf-8", errors="replace")
    else:
        header = _node_text(outer, source).split("\n", 1)[0]
        header = header.split("{", 1)[0]
    kept = [line for line in header.split("\n") if not line.strip().startswith(_LINE_MARKERS)]
    header = " ".join(" ".join(kept).split()).rstrip("{:= ").strip()
    return header[:SIGNATURE_CHARS]


def _code(lines: list[str], start_row: int, end_row: int) -> str:
    """The unit's lines, less its first line's indentation (textwrap.dedent took most of the
    parse on large classes)."""
    chosen = lines[start_row : end_row + 1]
    first = chosen[0] if chosen else ""
    indent = first[: len(first) - len(first.lstrip())]
    if not indent:
        return "\n".join(chosen)
    width = len(indent)
    return "\n".join(line[width:] if line.startswith(indent) else line for line in chosen)


def _is_async(node: Node) -> bool:
    for child in node.children[:8]:
        if child.type == "async" or (
            child.type in ("modifier", "modifiers") and b"async" in (child.text or b"")
        ):
            return True
    return False


def _node_text(node: Node, source: bytes) -> str:
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
            return _node_text(child, source).strip("\"'") or node.type
    return {"companion_object": "Companion"}.get(node.type, node.type)


def _assign_calls(units: _Units, calls: list[tuple[int, int, str]]) -> None:
    """Each call to the innermost unit around it (one sweep; calls in nested units are
    theirs)."""
    if not calls or not units.spans:
        return
    owned: dict[int, list[str]] = {}
    spans = sorted(units.spans, key=lambda s: (s[0], -s[1]))
    open_: list[tuple[int, int]] = []  # (end, index)
    upcoming = iter(spans)
    following = next(upcoming, None)
    for start, end, name in calls:
        while following is not None and following[0] <= start:
            while open_ and open_[-1][0] <= following[0]:
                open_.pop()
            open_.append((following[1], following[2]))
            following = next(upcoming, None)
        while open_ and open_[-1][0] < end:
            open_.pop()
        if open_:
            owned.setdefault(open_[-1][1], []).append(name)
    for index, names in owned.items():
        unit = units.made[index]
        units.made[index] = replace(unit, calls=tuple(dict.fromkeys(names)))


def _module_doc(lines: list[str], spec: LanguageSpec, first_lines: set[int]):
    """The file's leading doc comment (a Go package comment, `//!`, a file-level JSDoc): its
    text and rows; a comment that documents the first definition is that definition's."""
    if not spec.module_doc_lines and not spec.module_doc_blocks:
        return "", range(0)
    row = 0
    while row < len(lines) and (
        not lines[row].strip() or lines[row].startswith(("#!", "<?php", "<?"))
    ):
        row += 1
    if row >= len(lines):
        return "", range(0)
    line = lines[row].lstrip()
    end = row
    if spec.module_doc_blocks and line.startswith(_BLOCK_OPENERS):
        if not line.startswith(spec.module_doc_blocks):
            return "", range(0)
        while end < len(lines) and not lines[end].rstrip().endswith(_BLOCK_CLOSERS):
            end += 1
    elif spec.module_doc_lines and line.startswith(spec.module_doc_lines):
        marker = re.match(r"[^\w\s|^]+", line).group()
        while end + 1 < len(lines) and lines[end + 1].lstrip().startswith(marker):
            end += 1
    else:
        return "", range(0)
    if end >= len(lines):
        return "", range(0)
    following = end + 1
    text = _clean_comment(lines[row : end + 1])
    if _LICENCE.search(text[:300]):
        return "", range(0)
    attached = following in first_lines and following < len(lines)
    is_package = following < len(lines) and lines[following].startswith(("package ", "module "))
    if attached and not is_package:
        return "", range(0)
    return text, range(row, end + 1)


def _module_units(
    lines: list[str],
    units: _Units,
    binders: list[tuple[int, str]],
    spec: LanguageSpec,
    *,
    path: str,
    doc: str,
    doc_lines: range,
) -> list[ParsedUnit]:
    """Blocks of the lines no top-level unit covers, split at blank lines past
    MAX_BLOCK_LINES, each named after the first names it binds (or the file's stem)."""
    covered = [False] * len(lines)
    for start, end in units.top_spans:
        for row in range(start, min(end, len(lines) - 1) + 1):
            covered[row] = True
    stem = PurePosixPath(path).stem if path else ""
    binders.sort()
    binder_rows = [row for row, _ in binders]
    blocks: list[tuple[int, int]] = []
    row = 0
    while row < len(lines):
        if covered[row] or not lines[row].strip():
            row += 1
            continue
        start = row
        last = row  # last non-blank row of the block
        while row < len(lines) and not covered[row]:
            if lines[row].strip():
                if row - start >= MAX_BLOCK_LINES and not lines[row - 1].strip():
                    break
                if row - start >= 2 * MAX_BLOCK_LINES:
                    break
                last = row
            row += 1
        blocks.append((start, last))
        row = last + 1
    made: list[ParsedUnit] = []
    for start, end in blocks:
        low, high = bisect_right(binder_rows, start - 1), bisect_right(binder_rows, end)
        defines = tuple(dict.fromkeys(name for _, name in binders[low:high]))
        name = defines[0] if defines else (stem or "<module>")
        shown = ", ".join(defines[:6]) + (", ..." if len(defines) > 6 else "")
        has_doc = bool(doc_lines) and start <= doc_lines.start <= end
        made.append(
            ParsedUnit(
                kind=MODULE,
                name=name,
                qualname=units.unique(name),
                start_line=start + 1,
                end_line=end + 1,
                signature=f"module {stem}" + (f": {shown}" if shown else ""),
                docstring=doc if has_doc else "",
                code="\n".join(lines[start : end + 1]),
                defines=defines,
            )
        )
    return made
