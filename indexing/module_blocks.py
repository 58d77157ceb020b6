"""Module-level code as units: the statements between a file's definitions.

A file's functions and classes are units of their own; what lies between them (the module
docstring, constants, `__all__`, `g = LocalProxy(...)`, signal and registry definitions,
top-level calls, the `if __name__ == "__main__":` block) was in no unit, so a question whose
answer is such code ("g", "request lifecycle signals") could not find it. Here contiguous
top-level statements become blocks, split at statement boundaries when they grow long, each
named after what it defines.

Imports alone are no block: a run of imports defines nothing a reader looks for, and as its own
unit it matches every query that names a module. Imports next to other statements stay in
their block (the module docstring's block usually starts with them).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

# Statements longer than this start a new block at the next statement boundary. Chosen so
# that a block fits the embedder's window (256 word pieces, about 25 to 40 lines of code).
MAX_BLOCK_LINES = 30

_DEFINITIONS = {"function_definition", "class_definition", "decorated_definition"}
_IMPORTS = {"import_statement", "import_from_statement", "future_import_statement"}
_SKIPPED = {"comment"}  # kept inside a block, but a block of comments alone is none


@dataclass(frozen=True)
class ModuleBlock:
    start_line: int  # 1-based, inclusive
    end_line: int
    code: str
    defines: tuple[str, ...]  # names bound at module level, in order
    has_docstring: bool  # whether it holds the module docstring
    is_main: bool  # an `if __name__ == "__main__":` block
    # The file's opening lines: the block with the module docstring, or one that starts with
    # the file's imports. It says what the file is for, so it is named after the file.
    opens_file: bool = False

    def name(self, stem: str) -> str:
        """What the block is shown and found by: the file's name for its opening lines (flask's
        `globals.py` opening is `globals`, not its first assignment `_no_app_msg`), else its
        first public name, else its first name, else the file's. Every name it binds stays
        findable through `defines`."""
        if self.opens_file or not self.defines:
            return stem
        return next((n for n in self.defines if not n.startswith("_")), self.defines[0])


def module_blocks(
    root: Node, source: bytes, *, max_lines: int = MAX_BLOCK_LINES
) -> list[ModuleBlock]:
    """The module-level blocks of a parsed file, in file order."""
    docstring = next((n for n in root.children if n.type not in _SKIPPED), None)
    if docstring is not None and not _is_string_statement(docstring):
        docstring = None
    groups: list[list[Node]] = []
    current: list[Node] = []
    for child in root.children:
        holds_definition, is_main = _holds_definition(child), _is_main_guard(child)
        if holds_definition or is_main:
            groups.append(current)
            current = []
            if is_main and not holds_definition:
                groups.append([child])
            continue
        if current and _lines(current[0], child) > max_lines and child.type not in _SKIPPED:
            groups.append(current)
            current = []
        current.append(child)
    groups.append(current)
    return [block for group in groups if (block := _block(group, source, docstring)) is not None]


def _holds_definition(node: Node) -> bool:
    """A definition, or a compound statement (`if TYPE_CHECKING:`, `try:`) with one inside:
    its definitions are units, so the statement is left to them."""
    if node.type in _DEFINITIONS:
        return True
    if node.type == "expression_statement":
        return _is_named_lambda(node)
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if current.type in _DEFINITIONS or (
            current.type == "expression_statement" and _is_named_lambda(current)
        ):
            return True
        if current.type in ("block", "ERROR") or current.type.endswith(("_clause", "_statement")):
            stack.extend(current.children)
    return False


def _is_named_lambda(statement: Node) -> bool:
    # `name = lambda ...` is a function unit already (indexing.parsing).
    first = statement.named_children[0] if statement.named_children else None
    if first is None or first.type != "assignment":
        return False
    value = first.child_by_field_name("right")
    target = first.child_by_field_name("left")
    return (
        value is not None
        and value.type == "lambda"
        and target is not None
        and target.type == "identifier"
    )


def _is_main_guard(node: Node) -> bool:
    if node.type != "if_statement":
        return False
    condition = node.child_by_field_name("condition")
    text = condition.text.decode("utf-8", errors="replace") if condition is not None else ""
    return "__name__" in text and "__main__" in text


def _lines(first: Node, last: Node) -> int:
    return last.end_point[0] - first.start_point[0] + 1


def _block(group: list[Node], source: bytes, docstring: Node | None) -> ModuleBlock | None:
    statements = [n for n in group if n.type not in _SKIPPED]
    if not statements or all(n.type in _IMPORTS for n in statements):
        return None
    # Leading and trailing comments belong to the code around them as much as to this block:
    # the block spans its statements (comments between them stay inside).
    first, last = statements[0], statements[-1]
    line_start = source.rfind(b"\n", 0, first.start_byte) + 1
    code = source[line_start : last.end_byte].decode("utf-8", errors="replace")
    defines: dict[str, None] = {}
    for statement in statements:
        for name in _bound_names(statement):
            defines.setdefault(name, None)
    return ModuleBlock(
        start_line=first.start_point[0] + 1,
        end_line=last.end_point[0] + 1,
        code=code,
        defines=tuple(defines),
        has_docstring=docstring is not None and statements[0] == docstring,
        is_main=len(statements) == 1 and _is_main_guard(statements[0]),
        opens_file=statements[0] == docstring or statements[0].type in _IMPORTS,
    )


def _is_string_statement(node: Node) -> bool:
    return (
        node.type == "expression_statement"
        and bool(node.named_children)
        and node.named_children[0].type in ("string", "concatenated_string")
    )


def _bound_names(statement: Node) -> list[str]:
    """Names a top-level statement binds: assignment targets (tuples unpacked), annotated
    names, `type X = ...` aliases, and (inside `if`/`try` without definitions) the same one
    level down. Imports bind names too but define nothing here."""
    names: list[str] = []
    stack = [statement]
    while stack:
        node = stack.pop()
        if node.type in ("assignment", "augmented_assignment"):
            left = node.child_by_field_name("left")
            if left is not None:
                names.extend(_identifiers(left))
            right = node.child_by_field_name("right")
            if right is not None and right.type == "assignment":  # a = b = value
                stack.append(right)
        elif node.type == "type_alias_statement":
            left = node.child_by_field_name("left")
            if left is not None:
                names.extend(_identifiers(left))
        elif node.type in ("expression_statement", "block") or node.type.endswith(
            ("_clause", "if_statement", "try_statement", "with_statement")
        ):
            stack.extend(reversed(node.named_children))
    return names


def _identifiers(target: Node) -> list[str]:
    if target.type == "identifier":
        return [target.text.decode("utf-8", errors="replace")]
    if target.type in ("pattern_list", "tuple_pattern", "list_pattern", "type"):
        return [name for child in target.named_children for name in _identifiers(child)]
    return []  # attributes and subscripts (`x.y = 1`, `d[k] = v`) bind no module name
