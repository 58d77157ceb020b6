"""Copies of a function made by a script, for the code-to-code benchmark: every parameter and
local renamed, or independent neighbouring statements swapped. Each does what the original
does, so the original is the right answer for it. Both drop the docstring and comments (a
pasted snippet is code; its prose would make the words alone an easy match)."""

from __future__ import annotations

import ast
import builtins
import textwrap

_BUILTINS = frozenset(dir(builtins))


def _function(code: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    function = tree.body[0]
    if ast.get_docstring(function) is not None and len(function.body) > 1:
        function.body = function.body[1:]
    return function


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.names.get(node.arg, node.arg)
        return node


def renamed(code: str) -> str | None:
    """`code` (one function) with its parameters and locals renamed `a0`, `a1`, ... and `v0`,
    `v1`, ...; `self` and `cls` kept. None when it is not one parsable function or has
    nothing to rename."""
    function = _function(code)
    if function is None:
        return None
    args = function.args
    parameters = [
        a.arg
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
        if a is not None and a.arg not in ("self", "cls")
    ]
    stored = {
        n.id
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in _BUILTINS
    }
    declared = {
        name
        for n in ast.walk(function)
        if isinstance(n, ast.Global | ast.Nonlocal)
        for name in n.names
    }
    names = {p: f"a{i}" for i, p in enumerate(parameters)}
    for i, name in enumerate(sorted(stored - set(names) - declared)):
        names[name] = f"v{i}"
    if not names:
        return None
    # Keyword arguments at call sites keep their names: only the definition's own names move.
    return ast.unparse(_Rename(names).visit(function))


def _names(node: ast.AST) -> tuple[set[str], set[str]]:
    """(written, read) names of a statement; attribute and subscript targets count as reads of
    their object, which is enough to keep two statements touching one object in order."""
    written, read = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (written if isinstance(n.ctx, ast.Store | ast.Del) else read).add(n.id)
    return written, read


_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)


def _independent(first: ast.stmt, second: ast.stmt) -> bool:
    if not (isinstance(first, _SIMPLE) and isinstance(second, _SIMPLE)):
        return False
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return False  # a docstring stays first
    w1, r1 = _names(first)
    w2, r2 = _names(second)
    return not (w1 & (w2 | r2) or w2 & r1)


def _swap_in(body: list[ast.stmt]) -> int:
    swaps, i = 0, 0
    while i + 1 < len(body):
        if _independent(body[i], body[i + 1]):
            body[i], body[i + 1] = body[i + 1], body[i]
            swaps += 1
            i += 2
        else:
            i += 1
    return swaps


def reordered(code: str) -> str | None:
    """`code` (one function) with each pair of neighbouring simple statements that neither
    reads nor writes what the other writes swapped, at every depth. None when it is not one
    parsable function or no pair can be swapped."""
    function = _function(code)
    if function is None:
        return None
    swaps = 0
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                swaps += _swap_in(body)
    return ast.unparse(function) if swaps else None
