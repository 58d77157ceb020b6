"""Training rows of the developer-question kinds, made from the `train` packages only.

    python -m benchmarks.question_train [--out var/benchmarks/question-train] [--per-kind 20]

The learned ranker has seen docstring sentences (package rows) and web questions (CoSQA). This
adds the kinds developers also ask, each generated from code nobody here wrote:

- symbol: names as typed (a class or function name, `Class.method`, a module-level constant);
  the target is every definition of that name;
- behaviour: a class docstring's first sentence; the target is the class;
- architecture: a module docstring's first sentence; the target is the whole file.

Every docstring (function, class and module) is stripped from the indexed copy, as the package
benchmark strips functions' (`benchmarks.package_benchmark`): a query must not find its own
sentence. Packages whose questions are held out elsewhere are left out (`HELD_OUT`). Rows are in
the `repo` format, with `kind` and `source` marking how each was made; a gold entry without a
qualname is a file target.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
from pathlib import Path

from benchmarks.package_benchmark import (
    _NOT_ASKED,
    FUNCTIONS,
    TRAIN_PACKAGES,
    copy_package,
    function_docstrings,
    python_sources,
    usable_query,
)
from indexing.parsing import summary_line

# Their questions are a held-out check elsewhere: no query set of ours asks about them.
HELD_OUT = frozenset(
    [
        "aiohttp",
        "click",
        "fastapi",
        "flask",
        "httpx",
        "model2vec",
        "pydantic",
        "requests",
        "starlette",
    ]
)


def _order(key: str) -> str:
    return hashlib.sha1(key.encode()).hexdigest()


def strip_docstrings(source: str, tree: ast.Module) -> str:
    """Every docstring (module, class, function) replaced by `pass` or removed, by line."""
    lines = source.splitlines(keepends=True)
    found = function_docstrings(tree, ast.Module | ast.ClassDef | FUNCTIONS)
    for node, doc in sorted(found, key=lambda pair: -pair[1].lineno):
        start, end = doc.lineno - 1, doc.end_lineno - 1
        whole_lines = (
            not lines[start][: doc.col_offset].strip()
            and not lines[end][doc.end_col_offset :].strip()
        )
        if not whole_lines:
            continue  # `def f(): "doc"` on one line: rare, left as it is
        indent = lines[start][: doc.col_offset]
        alone = len(node.body) == 1 and not isinstance(node, ast.Module)
        lines[start : end + 1] = [f"{indent}pass\n"] if alone else []
    return "".join(lines)


def definitions(tree: ast.Module) -> list[tuple[str, str, ast.AST]]:
    """(qualname, kind, node) of every class and function, nested ones included."""
    out = []
    stack: list[tuple[ast.AST, str, bool]] = [(tree, "", False)]
    while stack:
        node, scope, in_class = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{scope}.{child.name}" if scope else child.name
                is_class = isinstance(child, ast.ClassDef)
                kind = "class" if is_class else ("method" if in_class else "function")
                out.append((qualname, kind, child))
                stack.append((child, qualname, is_class))
            elif not isinstance(child, ast.expr):
                stack.append((child, scope, in_class))
    return out


def constants(tree: ast.Module) -> list[str]:
    """Module-level UPPER_CASE names bound by assignment."""
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper() and len(target.id) > 3:
                names.append(target.id)
    return names


def build_package(name: str, out: Path, per_kind: int) -> list[dict]:
    copy_root = copy_package(name, out)
    names: dict[str, list[tuple[str, str]]] = {}  # bare name -> (path, qualname) of each def
    dotted, classes, modules, consts = [], [], [], []
    for file, relative, source, tree in python_sources(copy_root):
        askable = not (_NOT_ASKED.search(relative) or file.name.startswith("test_"))
        for qualname, kind, node in definitions(tree):
            bare = qualname.rsplit(".", 1)[-1]
            names.setdefault(bare, []).append((relative, qualname))
            if not askable or bare.startswith("_"):
                continue
            if kind == "method" and qualname.count(".") == 1:
                dotted.append((relative, qualname))
            doc = ast.get_docstring(node) if kind == "class" else None
            if doc and usable_query(sentence := summary_line(doc, limit=None)):
                classes.append((relative, qualname, sentence))
        doc = ast.get_docstring(tree)
        if askable and doc and usable_query(sentence := summary_line(doc, limit=None)):
            modules.append((relative, sentence))
        if askable:
            consts += [(relative, c) for c in constants(tree)]
        stripped = strip_docstrings(source, tree)
        if stripped != source:
            ast.parse(stripped)  # still valid Python, or the build stops here
            file.write_text(stripped, encoding="utf-8")
    repo = copy_root.name
    rows = []

    def row(query: str, kind: str, source: str, gold: list[dict]) -> dict:
        return {"query": query, "repo": repo, "kind": kind, "source": source, "gold": gold}

    public = sorted(
        (n for n, defs in names.items() if not n.startswith("_") and len(defs) <= 3),
        key=_order,
    )
    for bare in public[:per_kind]:
        gold = [{"path": p, "qualname": q} for p, q in names[bare]]
        rows.append(row(bare, "symbol", "definition name", gold))
    for path, qualname in sorted(dotted, key=lambda d: _order(d[1]))[: per_kind // 2]:
        rows.append(row(qualname, "symbol", "dotted name", [{"path": path, "qualname": qualname}]))
    for path, constant in sorted(consts, key=lambda c: _order(c[1]))[: per_kind // 4]:
        gold = [{"path": path, "qualname": constant}]  # the module block that defines it
        rows.append(row(constant, "symbol", "module constant", gold))
    for path, qualname, sentence in sorted(classes, key=lambda c: _order(c[1]))[:per_kind]:
        gold = [{"path": path, "qualname": qualname}]
        rows.append(row(sentence, "behaviour", "class docstring", gold))
    for path, sentence in sorted(modules, key=lambda m: _order(m[0]))[:per_kind]:
        rows.append(row(sentence, "architecture", "module docstring", [{"path": path}]))
    print(f"{repo}: {len(rows)} rows")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("var/benchmarks/question-train"))
    parser.add_argument("--per-kind", type=int, default=20)
    parser.add_argument("--packages", nargs="+", default=list(TRAIN_PACKAGES))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [
        r
        for name in args.packages
        if name not in HELD_OUT
        for r in build_package(name, args.out, args.per_kind)
    ]
    path = args.out / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} rows -> {path}")


if __name__ == "__main__":
    main()
