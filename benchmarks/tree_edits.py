"""The working tree of `benchmarks.working_tree` and the edits an agent makes to it: a slice of an
installed package copied into a folder, a function added, a function's body rewritten, a file
deleted. Pure file work, no Django."""

from __future__ import annotations

import ast
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# Each round's new function and rewritten body: words no tree of ours has, so a right answer is
# the edit itself and not a look-alike that was there before.
ROUNDS = {
    "early": {
        "added": '''
def reconcile_ledger_checksums(entries, expected_total):
    """Add up the ledger entries and list those whose checksum does not match their amount."""
    import zlib

    mismatched, running_total = [], 0
    for entry in entries:
        running_total += entry["amount"]
        if zlib.crc32(str(entry["amount"]).encode()) != entry["checksum"]:
            mismatched.append(entry["id"])
    return running_total == expected_total, mismatched
''',
        "added_query": "ledger entries whose checksum does not match",
        "changed": """
import re

# strip the html tags from the markup and collapse runs of whitespace
markup = str(next(iter(locals().values()), ""))
plain_text = re.sub(r"<[^>]+>", " ", markup)
return " ".join(plain_text.split())
""",
        "changed_marker": 'plain_text = re.sub(r"<[^>]+>"',
        "changed_query": "strip html tags from markup and collapse whitespace",
    },
    "late": {
        "added": '''
def haversine_distance_km(lat1, lon1, lat2, lon2):
    """Great-circle distance between two latitude/longitude points on Earth, in kilometres."""
    import math

    dlat, dlon = math.radians(lat2 - lat1), math.radians(lon2 - lon1)
    a = math.sin(dlat / 2) ** 2
    a += math.cos(math.radians(lat1)) * math.cos(math.radians(lat2)) * math.sin(dlon / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(a))
''',
        "added_query": "distance between two latitude longitude points in kilometres",
        "changed": """
# convert the celsius temperature reading to fahrenheit, rounded to one decimal
celsius_reading = 21.5
fahrenheit_reading = celsius_reading * 9 / 5 + 32
return round(fahrenheit_reading, 1)
""",
        "changed_marker": "fahrenheit_reading = celsius_reading * 9 / 5 + 32",
        "changed_query": "convert a celsius temperature to fahrenheit",
    },
}


@dataclass(frozen=True)
class Target:
    """A top-level function of the tree: its file (relative, POSIX) and name."""

    path: str
    name: str


def build_tree(*, source: Path, dest: Path, files: int) -> dict[str, int]:
    """The first `files` Python files of `source` sorted by relative path, copied with their
    folders into `dest`: a real project's code, the same slice every time."""
    chosen = sorted(
        (p for p in source.rglob("*.py") if p.is_file()),
        key=lambda p: p.relative_to(source).as_posix(),
    )[:files]
    lines = 0
    for path in chosen:
        copy = dest / path.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        lines += len(copy.read_bytes().splitlines())
    return {"files": len(chosen), "lines": lines}


def _modules(tree: Path) -> list[tuple[str, ast.Module]]:
    parsed = []
    for path in sorted(tree.rglob("*.py"), key=lambda p: p.relative_to(tree).as_posix()):
        try:
            parsed.append((path.relative_to(tree).as_posix(), ast.parse(path.read_bytes())))
        except (SyntaxError, ValueError):  # a file the indexer would skip too
            continue
    return parsed


def _editable(node: ast.stmt) -> bool:
    """A plain top-level function whose body has code below its docstring, on lines of its own
    (so that the body can be swapped by lines)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.decorator_list:
        return False
    code = _code_statements(node)
    return bool(code) and code[0].lineno > node.lineno and 2 <= node.end_lineno - node.lineno <= 40


def _code_statements(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring stays: an agent rewriting a body rarely touches it
    return body


def pick_functions(*, tree: Path, count: int) -> list[Target]:
    """`count` editable functions from distinct files, spread evenly over the tree in path order,
    each with a name defined nowhere else in the tree (so that a search for the name has one
    right answer)."""
    modules = _modules(tree)
    names = Counter(
        node.name
        for _, module in modules
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )
    found = []
    for path, module in modules:
        if path.endswith("__init__.py"):
            continue
        node = next((n for n in module.body if _editable(n) and names[n.name] == 1), None)
        if node is not None:
            found.append(Target(path=path, name=node.name))
    if len(found) < count:
        raise ValueError(f"{tree}: {len(found)} editable functions, {count} wanted")
    step = len(found) / count
    return [found[int(i * step)] for i in range(count)]


def append_function(*, path: Path, source: str) -> None:
    """A new function at the end of an existing file, as an agent adds one."""
    text = path.read_text()
    path.write_text(text.rstrip("\n") + "\n\n\n" + source.strip("\n") + "\n")


def replace_body(*, path: Path, name: str, body: str) -> None:
    """The code of top-level function `name` below its docstring replaced by `body` (dedented
    lines, indented here like the code they replace); signature and docstring stay."""
    text = path.read_text()
    node = next(
        n
        for n in ast.parse(text).body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
    )
    lines = text.splitlines(keepends=True)
    first = _code_statements(node)[0]
    indent = lines[first.lineno - 1][: first.col_offset]
    new = [f"{indent}{line}\n" if line else "\n" for line in body.strip("\n").splitlines()]
    lines[first.lineno - 1 : node.end_lineno] = new
    path.write_text("".join(lines))


def rank_of(results: list[dict], *, path: str, qualname: str) -> int | None:
    """The 1-based rank of the unit `path`:`qualname` among search_code's results, or None."""
    return next(
        (
            i
            for i, r in enumerate(results, start=1)
            if r["path"] == path and r["qualname"] == qualname
        ),
        None,
    )
