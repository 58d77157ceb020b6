"""Source in any code language of indexing.languages -> code units, by one routine.

The language's definition query (tags.scm style) finds the definitions; everything else is
the same for every language:
- nesting by byte range gives qualnames (`Cart.addItem`, `Bucket::take`), and a function
  directly inside a type is a method; a `@scope` capture qualifies definitions written outside
  their type (Go receivers, C++ `Foo::bar`, Lua `Timer.new`) (indexing.code_definitions);
- a unit's span starts at its doc comment and at the attributes, decorators or signatures
  attached above it, as a Python unit's starts at its decorators; doc comments are read from
  the source lines right above, with the language's markers taken off
  (indexing.code_comments);
- the code between top-level definitions (imports, constants, top-level statements) becomes
  module blocks of at most MAX_BLOCK_LINES lines, so every non-blank line is in some unit;
- where a syntax error threw the grammar off, the damaged stretch is parsed again in pieces
  (indexing.parse_recovery) and the definitions found there join the others.

Everything is iterative (no recursion over the tree), and each query is compiled once per
process.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from functools import cache
from pathlib import PurePosixPath

from tree_sitter import Node, Parser

from indexing.code_comments import (
    BLOCK_OPENERS,
    LINE_MARKERS,
    attached,
    body_doc,
    module_doc_comment,
    signature,
)
from indexing.code_definitions import Definition, captures, definition_end_row, nest
from indexing.languages import LanguageSpec
from indexing.parse_recovery import recover
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


@cache
def _parser(spec: LanguageSpec) -> Parser:
    return Parser(spec.language())


def parse_code(source: bytes, spec: LanguageSpec, *, path: str = "") -> ParsedFile:
    """Every definition the language's query finds in `source`, in file order (a unit before
    the units inside it), then the module blocks between the top-level ones."""
    result = ParsedFile(language=spec.name)
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        result.decoded_with_replacement = True
        text = source.decode("utf-8", errors="replace")
    root = _parser(spec).parse(_blanked(source, spec)).root_node
    if root.has_error:
        result.has_errors = True
        result.error_lines = error_lines(root)
    lines = text.split("\n")
    definitions, binders = captures(root, source, spec)
    definitions = nest(definitions, spec)
    if root.has_error and spec.definition_starts:
        definitions, binders = recover(root, source, lines, spec, (definitions, binders))
    units = _Units(source, lines, spec)
    for definition in definitions:
        units.add(definition)
    module_doc, module_doc_lines = module_doc_comment(lines, spec, units.first_lines)
    if not module_doc:
        module_doc = next((u.docstring for u in units.made if u.kind == CLASS), "")
        module_doc = module_doc if spec.body_doc_attributes else ""
    result.module_summary = summary_line(module_doc)
    units.made = _named_type_documented(units.made, module_doc, path)
    annotated = _annotated_types(lines, spec)
    binders += [(row, name) for row, names in annotated for name in names]
    made = units.made + _module_units(
        lines,
        units,
        binders,
        spec,
        path=path,
        doc=module_doc,
        doc_lines=module_doc_lines,
        breaks=_declaration_starts(lines, [row for row, _ in annotated]),
    )
    result.units = _with_annotated(made, annotated)
    return result


def _annotated_types(lines: list[str], spec: LanguageSpec) -> list[tuple[int, tuple[str, ...]]]:
    """The types declared in doc comments (`annotated_types`), by 0-based row: each as written
    and by its last part (`Gitsigns.GitContext`, `GitContext`), as a query may name either."""
    if not spec.annotated_types:
        return []
    pattern = _annotation_pattern(spec.annotated_types)
    found = []
    for row, line in enumerate(lines):
        if "@" in line and (match := pattern.match(line)) is not None:
            name = match.group(1).rstrip(".")
            found.append((row, tuple(dict.fromkeys((name, name.rsplit(".", 1)[-1])))))
    return found


def _declaration_starts(lines: list[str], rows: list[int]) -> set[int]:
    """Where a comment declaring a type begins after a blank line: a block of its own starts
    there, so that the declaration is not named for the code above it (`local M = {}`)."""
    starts = set()
    for row in rows:
        while row > 0 and lines[row - 1].strip() and not _is_code_line(lines[row - 1]):
            row -= 1
        if row == 0 or not lines[row - 1].strip():
            starts.add(row)
    return starts


def _is_code_line(line: str) -> bool:
    # The comment markers the doc-comment reader knows, and a block comment's inner `*` lines.
    return not line.lstrip().startswith((*LINE_MARKERS, *BLOCK_OPENERS, "*"))


@cache
def _annotation_pattern(expression: str) -> re.Pattern[str]:
    return re.compile(expression)


def _with_annotated(
    made: list[ParsedUnit], annotated: list[tuple[int, tuple[str, ...]]]
) -> list[ParsedUnit]:
    """A declaration in a definition's doc comment is the definition's: the innermost unit
    around the row defines the name too (module blocks got theirs as binders)."""
    if not annotated:
        return made
    out = list(made)
    for row, names in annotated:
        line = row + 1
        around = [
            i
            for i, unit in enumerate(out)
            if unit.kind != MODULE and unit.start_line <= line <= unit.end_line
        ]
        if around:
            i = max(around, key=lambda i: out[i].start_line)
            unit = out[i]
            out[i] = replace(unit, defines=tuple(dict.fromkeys((*unit.defines, *names))))
    return out


def _named_type_documented(made: list[ParsedUnit], doc: str, path: str) -> list[ParsedUnit]:
    """A header's opening comment documents the type the file is named for (`cache.h`'s
    comment says what `Cache` is for, and the class itself carries none): that type gets it as
    its doc, so that a question in the comment's words reaches the type, not only the file."""
    if not doc:
        return made
    stem = re.sub(r"[^a-z0-9]", "", PurePosixPath(path).stem.lower())
    out = []
    for unit in made:
        if (
            unit.kind == CLASS
            and not unit.docstring
            and not unit.parent_qualname
            and re.sub(r"[^a-z0-9]", "", unit.name.lower()) == stem
        ):
            unit = replace(unit, docstring=doc)
        out.append(unit)
    return out


def _blanked(source: bytes, spec: LanguageSpec) -> bytes:
    """What the grammar reads: the source with the language's `parse_blanks` (an export macro
    between `class` and its name, which the grammar cannot place) turned to spaces of the same
    length, so that every byte offset and line stays the source's own."""
    if not spec.parse_blanks:
        return source
    pattern = _blank_pattern(spec.parse_blanks)
    return pattern.sub(lambda m: m.group(0).replace(m.group(1), b" " * len(m.group(1))), source)


@cache
def _blank_pattern(expression: str) -> re.Pattern[bytes]:
    return re.compile(expression.encode(), re.MULTILINE)


class _Units:
    """Turns definitions into units, keeping qualnames unique in the file."""

    def __init__(self, source: bytes, lines: list[str], spec: LanguageSpec) -> None:
        self.source, self.lines, self.spec = source, lines, spec
        self.made: list[ParsedUnit] = []
        self.top_spans: list[tuple[int, int]] = []  # line spans of the top-level units
        self.first_lines: set[int] = set()  # 0-based first lines of the definitions
        self.taken: dict[str, int] = {}
        # id(Definition) -> its qualname's parts, before any `#2` suffix: a Rust `impl Bucket`
        # is the second unit named Bucket, and its methods are still `Bucket::take`.
        self.paths: dict[int, list[str]] = {}
        self.docs: dict[int, str] = {}

    def unique(self, qualname: str) -> str:
        self.taken[qualname] = self.taken.get(qualname, 0) + 1
        count = self.taken[qualname]
        return qualname if count == 1 else f"{qualname}#{count}"

    def add(self, definition: Definition) -> None:
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
        start_row, doc, decorators, signature_node = attached(definition, self.lines, spec)
        if not doc and definition.is_type and spec.body_doc_attributes:
            doc = body_doc(definition.node, source, spec)
        self.docs[id(definition)] = doc
        end_row = definition_end_row(definition, source)
        class_summary = ""
        class_name = ""
        if kind == METHOD or (kind == CLASS and parent is not None and parent.is_type):
            class_name = parent_qualname
            if parent is not None and not definition.scope:
                class_summary = summary_line(self.docs.get(id(parent), ""))
        node = definition.node
        self.first_lines.add(node.start_point[0])
        if parent is None:
            self.top_spans.append((start_row, end_row))
        self.made.append(
            ParsedUnit(
                kind=kind,
                name=definition.name,
                qualname=qualname,
                start_line=start_row + 1,
                end_line=end_row + 1,
                signature=signature(definition, signature_node, source),
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


def _module_units(
    lines: list[str],
    units: _Units,
    binders: list[tuple[int, str]],
    spec: LanguageSpec,
    *,
    path: str,
    doc: str,
    doc_lines: range,
    breaks: set[int] = frozenset(),
) -> list[ParsedUnit]:
    """Blocks of the lines no top-level unit covers, split at blank lines past
    MAX_BLOCK_LINES and at `breaks`, each named after the first names it binds (or the file's
    stem)."""
    covered = [False] * len(lines)
    for start, end in units.top_spans:
        for row in range(start, min(end, len(lines) - 1) + 1):
            covered[row] = True
    stem = PurePosixPath(path).stem if path else ""
    binders.sort(key=lambda binder: binder[0])  # stable: a row's names in the order found
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
                if row in breaks and row > start:
                    break
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
