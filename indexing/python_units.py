"""Python source -> code units, with tree-sitter.

tree-sitter rather than `ast` because it recovers from errors: Python 2 files, half-edited files
and syntax errors still yield the functions it can see, and the run records a warning instead of
losing the whole file.
"""

from __future__ import annotations

import dataclasses
import textwrap
from functools import cache
from pathlib import PurePosixPath
from typing import NamedTuple

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Tree

from indexing.module_blocks import module_blocks
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


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_python.language()))


def parse_tree(source: bytes) -> Tree:
    """Tree-sitter's syntax tree of `source` (error-tolerant: fragments parse too)."""
    return _parser().parse(source)


def parse_python(source: bytes, *, path: str = "") -> ParsedFile:
    """Every function, method, class and named lambda in `source`, in file order, then the
    module-level blocks between them. `path` names module blocks that define nothing."""
    result = ParsedFile()
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        result.decoded_with_replacement = True
    tree = parse_tree(source)
    root = tree.root_node
    if root.has_error:
        result.has_errors = True
        result.error_lines = error_lines(root)
    module_docstring = _docstring(root, source)
    result.module_summary = summary_line(module_docstring)
    _walk(root, source, out=result.units)
    result.units += _module_units(root, source, path=path, docstring=module_docstring)
    return result


def _module_units(root: Node, source: bytes, *, path: str, docstring: str) -> list[ParsedUnit]:
    stem = PurePosixPath(path).stem if path else ""
    if stem == "__init__":
        stem = PurePosixPath(path).parent.name
    units: list[ParsedUnit] = []
    taken: dict[str, int] = {}
    for block in module_blocks(root, source):
        name = "__main__" if block.is_main else block.name(stem or "<module>")
        taken[name] = taken.get(name, 0) + 1
        # Qualnames name one unit of a file: a second block named like the first is told apart.
        qualname = name if taken[name] == 1 else f"{name}#{taken[name]}"
        shown = ", ".join(block.defines[:6]) + (", ..." if len(block.defines) > 6 else "")
        units.append(
            ParsedUnit(
                kind=MODULE,
                name=name,
                qualname=qualname,
                start_line=block.start_line,
                end_line=block.end_line,
                signature=f"module {stem}" + (f": {shown}" if shown else ""),
                docstring=docstring if block.has_docstring else "",
                code=block.code,
                defines=block.defines,
            )
        )
    return units


def _unit_code(node: Node, source: bytes) -> str:
    """The unit's source, dedented: a method's body lines then line up with its `def`."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    indent = source[line_start : node.start_byte]
    text = _text(node, source)
    if not indent or indent.strip():
        return text  # at column 0, or preceded by code on the same line: keep as written
    return textwrap.dedent(indent.decode("utf-8", errors="replace") + text)


def _text(node: Node | None, source: bytes) -> str:
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _walk(root: Node, source: bytes, out: list[ParsedUnit]) -> None:
    """Collect units below `root` in file order. Each visit carries its qualname path
    (`scope`) and the directly enclosing class when it is a class body (its functions are
    methods).

    Iterative, with a stack of tasks (emit a unit, or visit a node): hostile or generated files
    nest thousands deep, far past Python's recursion limit."""
    tasks: list[ParsedUnit | _Visit] = [_Visit(root, [], None, "")]
    while tasks:
        task = tasks.pop()
        if isinstance(task, ParsedUnit):
            out.append(task)
            continue
        node, scope, in_class, class_summary = task
        found: list[ParsedUnit | _Visit] = []
        for child in node.children:
            definition, decorators = child, ()
            if child.type == "decorated_definition":
                definition = child.child_by_field_name("definition")
                decorators = tuple(
                    _text(d, source).lstrip("@").strip()
                    for d in child.children
                    if d.type == "decorator"
                )
                if definition is None:
                    continue
            if definition.type in ("function_definition", "class_definition"):
                unit = _make_unit(
                    child, definition, decorators, source, scope, in_class, class_summary
                )
                found.append(unit)
                body = definition.child_by_field_name("body")
                if body is not None:
                    if definition.type == "class_definition":
                        inner = _Visit(
                            body, [*scope, unit.name], unit.qualname, summary_line(unit.docstring)
                        )
                    else:
                        inner = _Visit(body, [*scope, unit.name], None, "")
                    found.append(inner)
            elif child.type == "expression_statement":
                lambda_unit = _named_lambda(child, source, scope, in_class, class_summary)
                if lambda_unit is not None:
                    found.append(lambda_unit)
            elif child.type in _COMPOUND_STATEMENTS or child.type in ("block", "ERROR"):
                # Definitions under `if TYPE_CHECKING:`, `try:` and the like belong to the same
                # scope; ERROR nodes often wrap perfectly good definitions after a syntax error.
                found.append(_Visit(child, scope, in_class, class_summary))
        tasks.extend(reversed(_fold_overloads(found, source)))


def _is_overload(unit: ParsedUnit) -> bool:
    return unit.kind != CLASS and any(d.split(".")[-1] == "overload" for d in unit.decorators)


def _fold_overloads(found: list[ParsedUnit | _Visit], source: bytes) -> list[ParsedUnit | _Visit]:
    """`@overload` stubs and the implementation that follows them become one unit: the
    implementation's name, signature and docstring, spanning the stubs too. Three stubs were
    three results before the code that does the work. Stubs with no implementation after them
    (a Protocol, a stub file) fold into the last of them."""
    out: list[ParsedUnit | _Visit] = []
    stubs: list[ParsedUnit] = []

    def flush_stubs() -> None:
        if stubs:
            out.append(_spanning(stubs[-1], stubs[0].start_line, source))
            stubs.clear()

    for item in found:
        if isinstance(item, _Visit):
            if not stubs:
                out.append(item)  # a stub's body holds nothing worth a unit
            continue
        if _is_overload(item):
            if stubs and stubs[0].name != item.name:
                flush_stubs()
            stubs.append(item)
            continue
        if stubs and stubs[0].name == item.name and item.kind != CLASS:
            out.append(_spanning(item, stubs[0].start_line, source))
            stubs.clear()
            continue
        flush_stubs()
        out.append(item)
    flush_stubs()
    return out


def _spanning(unit: ParsedUnit, start_line: int, source: bytes) -> ParsedUnit:
    lines = source.split(b"\n")[start_line - 1 : unit.end_line]
    code = textwrap.dedent(b"\n".join(lines).decode("utf-8", errors="replace"))
    return dataclasses.replace(unit, start_line=start_line, code=code)


class _Visit(NamedTuple):
    node: Node
    scope: list[str]
    in_class: str | None  # qualname of the class whose body this is
    class_summary: str


_COMPOUND_STATEMENTS = {
    "if_statement",
    "elif_clause",
    "else_clause",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "for_statement",
    "while_statement",
}


def _make_unit(
    outer: Node,
    definition: Node,
    decorators: tuple[str, ...],
    source: bytes,
    scope: list[str],
    in_class: str | None,
    class_summary: str,
) -> ParsedUnit:
    name = _text(definition.child_by_field_name("name"), source) or "<anonymous>"
    is_class = definition.type == "class_definition"
    kind = CLASS if is_class else (METHOD if in_class else FUNCTION)
    body = definition.child_by_field_name("body")
    header_end = body.start_byte if body is not None else definition.end_byte
    signature = (
        " ".join(
            source[definition.start_byte : header_end].decode("utf-8", errors="replace").split()
        )
        .rstrip(":")
        .strip()
    )
    return ParsedUnit(
        kind=kind,
        name=name,
        qualname=".".join([*scope, name]),
        start_line=outer.start_point[0] + 1,
        end_line=outer.end_point[0] + 1,
        signature=signature,
        docstring=_docstring(body, source),
        code=_unit_code(outer, source),
        parent_qualname=".".join(scope),
        class_name=in_class or "",
        class_summary=class_summary if in_class else "",
        decorators=decorators,
        is_async=any(c.type == "async" for c in definition.children),
        defines=(name,),
    )


def _named_lambda(
    statement: Node,
    source: bytes,
    scope: list[str],
    in_class: str | None,
    class_summary: str,
) -> ParsedUnit | None:
    """`name = lambda ...` is a function in all but syntax; index it as one."""
    assignment = statement.named_children[0] if statement.named_children else None
    if assignment is None or assignment.type != "assignment":
        return None
    target = assignment.child_by_field_name("left")
    value = assignment.child_by_field_name("right")
    if target is None or value is None or target.type != "identifier" or value.type != "lambda":
        return None
    name = _text(target, source)
    params = _text(value.child_by_field_name("parameters"), source)
    return ParsedUnit(
        kind=METHOD if in_class else FUNCTION,
        name=name,
        qualname=".".join([*scope, name]),
        start_line=statement.start_point[0] + 1,
        end_line=statement.end_point[0] + 1,
        signature=f"{name} = lambda {params}".rstrip(),
        docstring="",
        code=_unit_code(statement, source),
        parent_qualname=".".join(scope),
        class_name=in_class or "",
        class_summary=class_summary if in_class else "",
        defines=(name,),
    )


def _docstring(body: Node | None, source: bytes) -> str:
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children:
        return ""
    string = first.named_children[0]
    if string.type == "concatenated_string":
        parts = [c for c in string.named_children if c.type == "string"]
    elif string.type == "string":
        parts = [string]
    else:
        return ""
    text = "".join(
        _text(content, source)
        for part in parts
        for content in part.named_children
        if content.type == "string_content"
    )
    return _dedent_docstring(text)


def _dedent_docstring(text: str) -> str:
    lines = text.expandtabs().splitlines()
    if not lines:
        return ""
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    cleaned = [lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]]
    return "\n".join(cleaned).strip()
