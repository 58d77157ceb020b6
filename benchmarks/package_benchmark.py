"""Build a whole-repository benchmark from third-party code nobody here wrote (CodeSearchNet's
method): copy installed packages, pick documented functions deterministically, use the first
sentence of each docstring as the query, strip that docstring from the copy that is indexed,
and write `repo`-format rows.

    python -m benchmarks.package_benchmark [--out var/benchmarks/packages] [--per-package 25]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import json
import re
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

DEFAULT_PACKAGES = ("requests", "click", "jinja2", "httpx")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`'\"])\.(\s|$)")


@dataclass
class Candidate:
    path: str  # relative to the copy's root, e.g. "click/core.py"
    qualname: str
    query: str
    doc_node: ast.Expr


def first_sentence(docstring: str) -> str:
    paragraph = docstring.strip().split("\n\n", 1)[0]
    text = " ".join(paragraph.split())
    match = _SENTENCE_END.search(text)
    return (text[: match.start()] if match else text).strip().rstrip(".:")


def usable_query(text: str) -> bool:
    words = text.split()
    return 4 <= len(words) <= 40 and text[0].isalpha() and "TODO" not in text


def documented_functions(tree: ast.Module, path: str) -> list[Candidate]:
    found: list[Candidate] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name])
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = ".".join([*scope, child.name])
                doc = ast.get_docstring(child, clean=True)
                body0 = child.body[0] if child.body else None
                if doc and isinstance(body0, ast.Expr) and not child.name.startswith("__"):
                    query = first_sentence(doc)
                    if usable_query(query):
                        found.append(Candidate(path, qualname, query, body0))
                visit(child, [*scope, child.name])

    visit(tree, [])
    return found


def strip_docstrings(source: str, nodes: list[ast.Expr]) -> str:
    """Replace each docstring statement by `pass` (keeps the body valid and line count lower)."""
    lines = source.splitlines(keepends=True)
    for node in sorted(nodes, key=lambda n: -n.lineno):
        first, last = node.lineno - 1, node.end_lineno - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first : last + 1] = [f"{indent}pass\n"]
    return "".join(lines)


def build(packages: list[str], out: Path, per_package: int) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in packages:
        module = importlib.import_module(name)
        package_dir = Path(module.__file__).parent
        version = metadata.version(name)
        copy_root = out / f"{name}-{version}"
        shutil.rmtree(copy_root, ignore_errors=True)
        shutil.copytree(package_dir, copy_root / name, ignore=shutil.ignore_patterns("__pycache__"))
        candidates: list[Candidate] = []
        trees: dict[str, str] = {}
        for file in sorted((copy_root / name).rglob("*.py")):
            relative = file.relative_to(copy_root).as_posix()
            if "/tests/" in f"/{relative}" or file.name.startswith("test_"):
                continue
            source = file.read_text(encoding="utf-8")
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            trees[relative] = source
            candidates += documented_functions(tree, relative)
        # Deterministic and spread over the package: order by a hash of the unit's name.
        candidates.sort(key=lambda c: hashlib.sha1(f"{c.path}:{c.qualname}".encode()).hexdigest())
        chosen = candidates[:per_package]
        by_file: dict[str, list[ast.Expr]] = {}
        for c in chosen:
            by_file.setdefault(c.path, []).append(c.doc_node)
        for relative, nodes in by_file.items():
            (copy_root / relative).write_text(strip_docstrings(trees[relative], nodes))
        for c in chosen:
            rows.append(
                {
                    "query": c.query,
                    "repo": copy_root.name,
                    "gold": [{"path": c.path, "qualname": c.qualname}],
                }
            )
        print(f"{name} {version}: {len(candidates)} documented functions, {len(chosen)} chosen")
    rows_file = out / "rows.jsonl"
    rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {rows_file}")
    return rows_file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="var/benchmarks/packages")
    parser.add_argument("--per-package", type=int, default=25)
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    args = parser.parse_args()
    build(args.packages, Path(args.out), args.per_package)


if __name__ == "__main__":
    main()
