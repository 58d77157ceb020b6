"""Build a whole-repository benchmark from third-party code nobody here wrote (CodeSearchNet's
method): copy installed packages, pick documented functions deterministically, use the first
sentence of each docstring as the query, and write `repo`-format rows. The copy that is indexed
has every function's docstring removed, not only the chosen ones' (see
`strip_function_docstrings` for why).

The packages are split once, by package, into `train` (anything learned or fitted is fitted on
these only) and `dev` (defaults are chosen on these). Each split mixes small and large packages
(several over 5,000 units). Every package is one whole repository: its tests and vendored copies
are indexed too (they are realistic distractors) but never asked about.

    python -m benchmarks.package_benchmark [--out var/benchmarks/packages] [--per-package 40]

writes `<out>/train.jsonl` and `<out>/dev.jsonl` (and the package copies they point to).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from indexing.parsing import summary_line
from search.evaluation.questions import installed_version, package_root

# Fixed by hand so that both halves mix sizes (units as parsed with the pinned versions).
TRAIN_PACKAGES = (
    "numpy",  # 13.8k units
    "openai",  # 7.0k
    "fontTools",  # 6.6k
    "redis",  # 5.0k
    "textual",  # 4.5k
    "playwright",  # 4.2k
    "setuptools",  # 3.5k
    "huggingface_hub",  # 2.7k
    "prompt_toolkit",  # 2.5k
    "psycopg",  # 2.1k
    "lancedb",  # 2.0k
    "opentelemetry",  # 2.0k
    "openpyxl",  # 1.9k
    "grpc",  # 1.2k
    "pyparsing",  # 0.6k
    "oauthlib",  # 0.5k
    "tqdm",  # 0.3k
)
DEV_PACKAGES = (
    "django",  # 11.2k
    "matplotlib",  # 10.2k
    "pip",  # 7.3k
    "crewai",  # 5.0k
    "celery",  # 3.4k
    "chromadb",  # 3.3k
    "_pytest",  # 2.4k
    "kombu",  # 1.9k
    "rich",  # 1.1k
    "jinja2",  # 0.9k
    "websockets",  # 0.7k
    "urllib3",  # 0.6k
)
# Installed projects on the held-out list: never asked in any split. They were dev packages until
# 2026-12-07; the embedder's data still stays clear of them, their docstrings and their forks
# (httpx2) as it did when the shipped delta was built, so that its recipe's pairs do not move.
HELD_OUT_INSTALLED = ("pydantic", "click", "httpx", "requests")
SPLITS = {"train": TRAIN_PACKAGES, "dev": DEV_PACKAGES}
_NOT_ASKED = re.compile(r"(^|/)(tests?|testing|_vendor|vendor|_distutils)(/|$)")


@dataclass
class Candidate:
    path: str  # relative to the copy's root, e.g. "click/core.py"
    qualname: str
    query: str


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
                    query = summary_line(doc, limit=None)
                    if usable_query(query):
                        found.append(Candidate(path, qualname, query))
                visit(child, [*scope, child.name])

    visit(tree, [])
    return found


FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef


def function_docstrings(tree: ast.AST, kinds=FUNCTIONS) -> list[tuple[ast.AST, ast.Expr]]:
    """(node, its docstring statement) for every node of `kinds` (functions and methods by
    default) that has one."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.append((node, first))
    return found


def strip_function_docstrings(source: str, tree: ast.AST) -> str:
    """Every function's and method's docstring removed (`pass` where it was the whole body);
    class and module docstrings stay.

    All of them, not only the gold units': were only the answers stripped, "has no docstring"
    would mark the answer, and anything fitted on this data (the learned ranker) would learn to
    push documented code down. Offsets are byte offsets, as `ast` gives them."""
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    for function, node in sorted(function_docstrings(tree), key=lambda e: -e[1].lineno):
        first, last = node.lineno - 1, node.end_lineno - 1
        prefix, suffix = lines[first][: node.col_offset], lines[last][node.end_col_offset :]
        if prefix.strip() and len(function.body) > 1:
            replacement = prefix + suffix.lstrip(b"; ")  # `def f(): "doc"; return 1`
        elif prefix.strip() or len(function.body) == 1 or suffix.strip():
            replacement = prefix + b"pass" + suffix
        else:
            replacement = b""  # a docstring on lines of its own, with a body after it
        lines[first : last + 1] = [replacement] if replacement else []
    return b"".join(lines).decode()


def choose(askable: list[Candidate], every_query: Counter, per_package: int) -> list[Candidate]:
    """Deterministic and spread over the package: order by a hash of the unit's name. A query
    whose sentence opens more than one docstring of the package (`every_query` counts them all,
    tests and vendored code included) is ambiguous (overloads, copied docstrings): never asked."""
    unique = [c for c in askable if every_query[c.query.lower()] == 1]
    unique.sort(key=lambda c: hashlib.sha1(f"{c.path}:{c.qualname}".encode()).hexdigest())
    return unique[:per_package]


def copy_package(name: str, out: Path) -> Path:
    """A fresh copy of the installed package at `out/<name>-<version>/<name>`; returns the
    copy's root (the directory that holds the package, as a repository would)."""
    copy_root = out / f"{name}-{installed_version(name)}"
    shutil.rmtree(copy_root, ignore_errors=True)
    shutil.copytree(
        package_root(name), copy_root / name, ignore=shutil.ignore_patterns("__pycache__")
    )
    return copy_root


def python_sources(copy_root: Path) -> Iterator[tuple[Path, str, str, ast.Module]]:
    """(file, path relative to the root, source, its tree) of every parsable .py file, in
    order; files Python cannot parse are indexed as they are but never asked about."""
    for file in sorted(copy_root.rglob("*.py")):
        try:
            source = file.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        yield file, file.relative_to(copy_root).as_posix(), source, tree


def build_package(name: str, out: Path, per_package: int) -> list[dict]:
    copy_root = copy_package(name, out)
    askable: list[Candidate] = []
    every_query: Counter = Counter()
    for file, relative, source, tree in python_sources(copy_root):
        documented = documented_functions(tree, relative)
        every_query.update(c.query.lower() for c in documented)
        # Tests and vendored copies are indexed as distractors but never asked about.
        if not (_NOT_ASKED.search(relative) or file.name.startswith("test_")):
            askable += documented
        stripped = strip_function_docstrings(source, tree)
        if stripped != source:
            ast.parse(stripped)  # still valid Python, or the build stops here
            file.write_text(stripped, encoding="utf-8")
    chosen = choose(askable, every_query, per_package)
    print(f"{copy_root.name}: {len(askable)} askable documented functions, {len(chosen)} chosen")
    return [
        {
            "query": c.query,
            "repo": copy_root.name,
            "gold": [{"path": c.path, "qualname": c.qualname}],
        }
        for c in chosen
    ]


def build(out: Path, per_package: int, splits: dict[str, tuple[str, ...]] = SPLITS) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for split, packages in splits.items():
        rows = [row for name in packages for row in build_package(name, out, per_package)]
        rows_file = out / f"{split}.jsonl"
        rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{split}: {len(rows)} rows from {len(packages)} packages -> {rows_file}")
        written.append(rows_file)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="var/benchmarks/packages")
    parser.add_argument("--per-package", type=int, default=40)
    parser.add_argument(
        "--packages", nargs="+", help="one ad-hoc split named 'custom' instead of train/dev"
    )
    args = parser.parse_args()
    splits = {"custom": tuple(args.packages)} if args.packages else SPLITS
    build(Path(args.out), args.per_package, splits)


if __name__ == "__main__":
    main()
