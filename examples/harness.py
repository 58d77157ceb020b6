"""What the example writer learns from the found unit's own module before asking the model, and
what it fixes in the model's program without asking it again.

Small models fail examples for reasons the module's source answers: a companion name of the
same module used without its import (`Style` beside `Console`), a method called without knowing
how to build its object, a coroutine called without a loop. The facts go into the prompt; a
name the program uses but never binds, when the module or the standard library has it, is
imported by the harness (the model's check is left as it wrote it)."""

from __future__ import annotations

import ast
import builtins
import sys
from dataclasses import dataclass

MAX_NAMES = 30  # public names listed in the prompt; a big module's rest are still imported


@dataclass(frozen=True)
class ModuleFacts:
    names: tuple[str, ...] = ()  # the module's public top-level names
    signature: str = ""  # how the unit is called, e.g. `obj.send(request, stream=False)`
    constructor: str = ""  # for a method: how its class is built, e.g. `Session()`
    methods: tuple[str, ...] = ()  # for a class: its public methods, one of which to call
    is_async: bool = False


def module_facts(source: str, qualname: str) -> ModuleFacts:
    """The facts about `qualname` that its module's source gives ("" where it cannot tell)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ModuleFacts()
    names = tuple(sorted(_public_names(tree)))
    parts = qualname.split(".")
    owner = _class(tree, parts[0]) if len(parts) > 1 else None
    node = _member(tree.body if owner is None else owner.body, parts[-1])
    if len(parts) > 2 or node is None:
        return ModuleFacts(names=names)
    if isinstance(node, ast.ClassDef):
        methods = tuple(
            m.name
            for m in node.body
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and not m.name.startswith("_")
        )
        return ModuleFacts(names=names, constructor=_constructor(node), methods=methods)
    is_async = isinstance(node, ast.AsyncFunctionDef)
    decorators = {_decorator_name(d) for d in node.decorator_list}
    if owner is None:
        return ModuleFacts(names=names, signature=_call(node.name, node.args), is_async=is_async)
    if "property" in decorators or "cached_property" in decorators:
        signature = f"obj.{node.name}  (a property: read it, do not call it)"
    elif decorators & {"classmethod", "staticmethod"}:
        is_static = "staticmethod" in decorators
        signature = _call(f"{owner.name}.{node.name}", node.args, bound=not is_static)
    else:
        signature = _call(f"obj.{node.name}", node.args, bound=True)
    return ModuleFacts(
        names=names, signature=signature, constructor=_constructor(owner), is_async=is_async
    )


def describe(facts: ModuleFacts, unit_name: str, module: str) -> str:
    """The facts as lines of the prompt."""
    lines = []
    if facts.constructor:
        lines.append(f"Build the object first: `obj = {facts.constructor}`.")
    if facts.signature:
        lines.append(f"Call it as `{facts.signature}`.")
    if facts.methods:
        shown = ", ".join(facts.methods[:MAX_NAMES])
        lines.append(
            f"Build it, then call one of its methods and check what that returns: {shown}."
        )
    if facts.is_async:
        lines.append("It is a coroutine function: call it inside `asyncio.run(...)`.")
    others = [n for n in facts.names if n != unit_name][:MAX_NAMES]
    if others:
        lines.append(f"`{module}` also defines: {', '.join(others)}.")
    return "\n".join(lines)


def import_missing(program: str, module: str, module_names: set[str]) -> str:
    """The program with imports added for names it uses but never binds: from the unit's module
    when the module defines them, else a standard-library module of that name. Anything else
    is left for the run to report (and the model to fix)."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program
    missing = sorted(_used(tree) - _bound(tree) - set(dir(builtins)))
    from_module = [n for n in missing if n in module_names]
    stdlib = [n for n in missing if n not in module_names and n in sys.stdlib_module_names]
    added = [f"import {name}" for name in stdlib]
    if from_module:
        added.append(f"from {module} import {', '.join(from_module)}")
    if not added:
        return program
    lines = program.splitlines()
    at = _after_imports(tree)
    return "\n".join([*lines[:at], *added, *lines[at:]])


def _public_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            # relative ones too: `from .style import Style` makes rich.console.Style importable
            names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return {n for n in names if not n.startswith("_")}


def _class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    node = _member(tree.body, name)
    return node if isinstance(node, ast.ClassDef) else None


def _member(body: list[ast.stmt], name: str):
    found = None
    for node in body:  # the last definition wins, as at import (overload stubs come first)
        defines = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if defines and node.name == name:
            found = node
    return found


def _decorator_name(node: ast.expr) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _call(name: str, args: ast.arguments, *, bound: bool = False) -> str:
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    if bound and positional:
        positional, defaults = positional[1:], defaults[1:]  # self or cls
    parts = [
        a.arg if d is None else f"{a.arg}={_short(d)}"
        for a, d in zip(positional, defaults, strict=True)
    ]
    if args.vararg:
        parts.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        parts.append("*")
    for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        parts.append(a.arg if d is None else f"{a.arg}={_short(d)}")
    if args.kwarg:
        parts.append(f"**{args.kwarg.arg}")
    return f"{name}({', '.join(parts)})"


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 24 else "..."


def _constructor(node: ast.ClassDef) -> str:
    init = _member(node.body, "__init__")
    if isinstance(init, ast.FunctionDef):
        return _call(node.name, init.args, bound=True)
    fields = [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is None
    ]
    if fields:  # a dataclass, NamedTuple or model: its annotated fields without defaults
        return f"{node.name}({', '.join(f'{f}=...' for f in fields)})"
    return f"{node.name}(...)" if node.bases else f"{node.name}()"


def _used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound(tree: ast.Module) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            if not isinstance(node, ast.ClassDef):
                every = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                every += [a for a in (node.args.vararg, node.args.kwarg) if a]
                bound.update(a.arg for a in every)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in [*node.args.args, *node.args.kwonlyargs])
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    return bound


def _after_imports(tree: ast.Module) -> int:
    """The line after the program's leading docstring and imports."""
    at = 0
    for node in tree.body:
        is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (isinstance(node, ast.Import | ast.ImportFrom) or (is_docstring and at == 0)):
            break
        at = node.end_lineno or at
    return at
