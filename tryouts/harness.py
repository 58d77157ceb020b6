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
from dataclasses import dataclass, replace

MAX_NAMES = 30  # public names listed in the prompt; a big module's rest are still imported


@dataclass(frozen=True)
class ModuleFacts:
    names: tuple[str, ...] = ()  # the module's public top-level names
    defined: frozenset[str] = frozenset()  # every top-level name, private ones too
    signature: str = ""  # how the unit is called, e.g. `obj.send(request, stream=False)`
    constructor: str = ""  # for a method or class: how the object is built, e.g. `Session()`
    call: str = ""  # the signature with its required arguments only: the skeleton's call
    build: str = ""  # the constructor with its required arguments only
    methods: tuple[str, ...] = ()  # for a class: its public methods, one of which to call
    properties: tuple[str, ...] = ()  # for a class: its properties (read, never called)
    is_async: bool = False


def module_facts(source: str, qualname: str) -> ModuleFacts:
    """The facts about `qualname` that its module's source gives ("" where it cannot tell)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ModuleFacts()
    defined = _top_level_names(tree)
    module = ModuleFacts(
        names=tuple(sorted(n for n in defined if not n.startswith("_"))),
        defined=frozenset(defined),
    )
    parts = qualname.split(".")
    owner = _class(tree, parts[0]) if len(parts) > 1 else None
    node = _member(tree.body if owner is None else owner.body, parts[-1])
    if len(parts) > 2 or node is None:
        return module
    if isinstance(node, ast.ClassDef):
        public = [
            m
            for m in node.body
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and not m.name.startswith("_")
        ]
        return replace(
            module,
            constructor=_constructor(node),
            build=_constructor(node, required_only=True),
            methods=tuple(m.name for m in public if not _is_property(m)),
            properties=tuple(dict.fromkeys(m.name for m in public if _is_property(m))),
        )
    is_async = isinstance(node, ast.AsyncFunctionDef)
    decorators = {_decorator_name(d) for d in node.decorator_list}
    if owner is None:
        name, bound = node.name, False
    elif _is_property(node):
        read = f"obj.{node.name}"
        return replace(
            module,
            signature=f"{read}  (a property: read it, do not call it)",
            call=read,
            constructor=_constructor(owner),
            build=_constructor(owner, required_only=True),
        )
    elif decorators & {"classmethod", "staticmethod"}:
        name, bound = f"{owner.name}.{node.name}", "staticmethod" not in decorators
    else:
        name, bound = f"obj.{node.name}", True
    built = {}
    if owner is not None and not name.startswith(owner.name + "."):
        built = {
            "constructor": _constructor(owner),
            "build": _constructor(owner, required_only=True),
        }
    return replace(
        module,
        signature=_call(name, node.args, bound=bound),
        call=_call(name, node.args, bound=bound, required_only=True),
        is_async=is_async,
        **built,
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
        lines.append(f"Build it, call one of its methods, check what that returns: {shown}.")
    if facts.properties:
        shown = ", ".join(facts.properties[:MAX_NAMES])
        lines.append(f"Its properties, read without calling them: {shown}.")
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


def whole_statements(program: str) -> str:
    """A program cut off before its end (the answer's token limit, inside a string or a
    bracket: a tenth of the 1.5B's programs) cut back to its longest run of whole lines that
    parses and still checks something; a program that parses, or whose whole lines check
    nothing, as it is."""
    try:
        ast.parse(program)
        return program
    except SyntaxError:
        pass
    lines = program.splitlines()
    for end in range(len(lines) - 1, 0, -1):
        prefix = "\n".join(lines[:end])
        try:
            tree = ast.parse(prefix)
        except SyntaxError:
            continue
        if any(isinstance(node, ast.Assert) for node in ast.walk(tree)):
            return prefix
        return program  # the whole lines before the cut check nothing: not a usable example
    return program


def placeholders_left(program: str) -> int:
    """How many `...` the program still holds where a value belongs (an argument, an assigned
    or asserted value): the skeleton's placeholders, left unfilled."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return 0
    holes = 0
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.Call):
            values = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Assign):
            values = [node.value]
        elif isinstance(node, ast.Compare):
            values = [node.left, *node.comparators]
        holes += sum(isinstance(v, ast.Constant) and v.value is Ellipsis for v in values)
    return holes


def show_compared_values(program: str) -> str:
    """Each `assert a == b` without a message gets `repr(a)` as its message, so a failed check
    says what the code returned (for the model's correction and the reader); comments and
    layout are kept, only the ends of such one-line asserts change."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program
    lines = program.splitlines()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assert)
            and node.msg is None
            and isinstance(node.test, ast.Compare)
            and node.lineno == node.end_lineno
            and node.end_col_offset is not None
        ):
            line = lines[node.lineno - 1]
            left = ast.get_source_segment(program, node.test.left)
            if left is None or not line.isascii():  # col offsets count bytes
                continue
            end = node.end_col_offset
            lines[node.lineno - 1] = f"{line[:end]}, repr({left}){line[end:]}"
    return "\n".join(lines)


def _top_level_names(tree: ast.Module) -> set[str]:
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
    return names


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


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    names = {_decorator_name(d) for d in node.decorator_list}
    # `@x.setter` and `@x.deleter` belong to the property x
    return bool(names & {"property", "cached_property", "setter", "deleter", "getter"})


def _call(name: str, args: ast.arguments, *, bound: bool = False, required_only=False) -> str:
    """`name(a, b=1, *rest, key=None, **options)`; with `required_only`, the arguments a call
    must pass (`name(a, key=key)` for a keyword-only one without a default)."""
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    if bound and positional:
        positional, defaults = positional[1:], defaults[1:]  # self or cls
    keywords = list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    if required_only:  # placeholders the model must fill, named for what they stand for
        parts = [f"{a.arg}=..." for a, d in zip(positional, defaults, strict=True) if d is None]
        parts += [f"{a.arg}=..." for a, d in keywords if d is None]
        return f"{name}({', '.join(parts)})"
    parts = [
        a.arg if d is None else f"{a.arg}={_short(d)}"
        for a, d in zip(positional, defaults, strict=True)
    ]
    if args.vararg:
        parts.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        parts.append("*")
    parts += [a.arg if d is None else f"{a.arg}={_short(d)}" for a, d in keywords]
    if args.kwarg:
        parts.append(f"**{args.kwarg.arg}")
    return f"{name}({', '.join(parts)})"


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 24 else "..."


def _constructor(node: ast.ClassDef, *, required_only: bool = False) -> str:
    init = _member(node.body, "__init__")
    if isinstance(init, ast.FunctionDef):
        return _call(node.name, init.args, bound=True, required_only=required_only)
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
