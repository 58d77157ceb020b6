"""Embedder training pairs from the written train questions (`benchmarks/questions/train/`):
questions in a user's words, which no docstring sentence is (issue 32).

Each question's primary targets become pairs, the code being what the index embeds for the
target (`indexing.unit_text.code_text` of the installed file's unit, docstrings kept: the
question set is asked of the packages as they are installed):
- a unit target: that unit (an overloaded function's folded unit);
- a line span: the unit that overlaps it most;
- a file target (most architecture questions): the file's first module block, its imports and
  top-level names, as the module docstring pairs use it; a file of definitions only has no
  such block, and its target gives no pair (said on stderr).
A pair's hard negative is the unit of the same package that shares the most words with the
question and is none of its targets, primary or secondary, nor in a file it names: the code most
easily mistaken for the answer. Only train packages have written questions (the set's guide);
the loader refuses a question whose package version moved, so targets are where they were read.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from benchmarks.common import order_key
from indexing.parsing import MODULE, ParsedUnit, parse_source
from indexing.unit_text import code_text
from search.evaluation.questions import installed_version, package_root

SOURCE = "question"


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2)


@cache
def _file_units(file: Path) -> tuple[ParsedUnit, ...]:
    return tuple(parse_source(file.read_bytes()).units)


@cache
def _package_units(package: str) -> tuple[tuple[str, ParsedUnit, frozenset[str]], ...]:
    """(path as the questions write it, unit, its words) for every unit of the package."""
    root = package_root(package)
    found = []
    for file in sorted(root.rglob("*.py")):
        relative = f"{package}/{file.relative_to(root).as_posix()}"
        try:
            units = _file_units(file)
        except (OSError, ValueError):
            continue
        found += [(relative, u, _words(code_text(u))) for u in units]
    return tuple(found)


def _target_unit(package: str, target: dict) -> ParsedUnit | None:
    file = package_root(package) / target["path"].removeprefix(f"{package}/")
    units = _file_units(file)
    if target.get("qualname"):
        return next((u for u in units if u.qualname == target["qualname"]), None)
    if target.get("lines"):
        start, end = target["lines"]

        def overlap(u: ParsedUnit) -> int:
            return min(end, u.end_line) - max(start, u.start_line)

        best = max(units, key=overlap, default=None)
        return best if best is not None and overlap(best) >= 0 else None
    return next((u for u in units if u.kind == MODULE), None)


def _negative(package: str, question: dict, answer: str) -> str:
    targets = question["primary"] + question.get("secondary", [])
    named_files = {t["path"] for t in targets if not t.get("qualname") and not t.get("lines")}
    named_units = {(t["path"], t["qualname"]) for t in targets if t.get("qualname")}
    words = _words(question["query"])
    best, best_key = "", None
    for path, unit, unit_words in _package_units(package):
        if path in named_files or (path, unit.qualname) in named_units:
            continue
        text = code_text(unit)
        if text == answer:
            continue
        key = (-len(words & unit_words), order_key(question["id"], path, unit.qualname))
        if best_key is None or key < best_key:
            best, best_key = text, key
    return best


def question_pairs(directory: Path) -> list[dict]:
    """Pairs from every question file of `directory` (see the module docstring)."""
    pairs = []
    for path in sorted(directory.glob("*.jsonl")):
        questions = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        pairs += _pairs_of(questions, where=path.name)
    return pairs


def _pairs_of(questions: Iterable[dict], *, where: str) -> list[dict]:
    out = []
    for question in questions:
        package = question["package"]
        if installed_version(package) != question["version"]:
            raise SystemExit(
                f"{where}: {question['id']} was written against {package} "
                f"{question['version']}, {installed_version(package)} is installed"
            )
        for target in question["primary"]:
            unit = _target_unit(package, target)
            if unit is None and (target.get("qualname") or target.get("lines")):
                raise SystemExit(f"{where}: {question['id']}: no unit for target {target}")
            if unit is None:
                print(
                    f"{where}: {question['id']}: {target['path']} has no module block: no pair",
                    file=sys.stderr,
                )
                continue
            code = code_text(unit)
            out.append(
                {
                    "query": question["query"],
                    "code": code,
                    "negative": _negative(package, question, code),
                    "source": f"{SOURCE}:{package}",
                }
            )
    return out
