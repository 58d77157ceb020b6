"""Embedder training pairs from the written train questions (`benchmarks/questions/train`):
questions in a user's words, which no docstring sentence is.

The questions are read by the evaluation's own loader (`search.evaluation.questions`), which
refuses a row written against another version of its package and a target that is not there.
Each question's primary targets become pairs, the code being what the index embeds for the
target (`indexing.unit_text.code_text` of the installed file's unit, docstrings kept: the
question set is asked of the packages as they are installed):
- a unit target: that unit (an overloaded function's folded unit);
- a line span: the unit that overlaps it most;
- a file target (most architecture questions): the file's first module block, its imports and
  top-level names, as the module docstring pairs use it; a file with no module block (nothing
  at its top level but imports and definitions) gives no pair for that target (said on stderr).
A pair's hard negative is the unit of the same package that shares the most words with the
question and is none of its targets, primary or secondary, nor in a file it names: the code most
easily mistaken for the answer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from benchmarks.common import order_key, words_of
from indexing.parsing import MODULE, ParsedUnit, parse_source
from indexing.unit_text import code_text
from search.evaluation.dataset_types import EvalQuery, GoldUnit
from search.evaluation.questions import load_questions, package_root

SOURCE = "question"


@dataclass(frozen=True)
class _Unit:
    path: str  # relative to the package's folder, as the loader's targets are
    unit: ParsedUnit
    text: str  # as the index embeds it
    words: frozenset[str]


def _question_words(text: str) -> frozenset[str]:
    # Words of one or two letters ("a", "to", "is") are in nearly every unit: they would pick
    # the negative by length rather than by topic.
    return frozenset(w for w in words_of(text) if len(w) > 2)


@cache
def _file_units(package: str, path: str) -> tuple[_Unit, ...]:
    units = parse_source((package_root(package) / path).read_bytes()).units
    return tuple(_Unit(path, u, text := code_text(u), _question_words(text)) for u in units)


@cache
def _package_units(package: str) -> tuple[_Unit, ...]:
    root = package_root(package)
    found: list[_Unit] = []
    for file in sorted(root.rglob("*.py")):
        try:
            found += _file_units(package, file.relative_to(root).as_posix())
        except (OSError, ValueError):
            continue  # an unreadable file has no unit to offer as a negative
    return tuple(found)


def _target_unit(package: str, target: GoldUnit) -> _Unit | None:
    units = _file_units(package, target.path)
    if target.qualname:
        return next((u for u in units if u.unit.qualname == target.qualname), None)
    if target.lines:
        start, end = target.lines

        def overlap(u: _Unit) -> int:
            return min(end, u.unit.end_line) - max(start, u.unit.start_line)

        best = max(units, key=overlap, default=None)
        return best if best is not None and overlap(best) >= 0 else None
    return next((u for u in units if u.unit.kind == MODULE), None)


def _negative(query: EvalQuery, answer: str) -> str:
    named_files = {t.path for t in query.gold if not t.qualname and not t.lines}
    named_units = {(t.path, t.qualname) for t in query.gold if t.qualname}
    words = _question_words(query.query)
    candidates = [
        u
        for u in _package_units(query.corpus)
        if u.path not in named_files
        and (u.path, u.unit.qualname) not in named_units
        and u.text != answer
    ]
    best = min(
        candidates,
        key=lambda u: (
            -len(words & u.words),
            # the path as the question files write it: the recipe's hash stays what it was
            order_key(query.query_id, f"{query.corpus}/{u.path}", u.unit.qualname),
        ),
        default=None,
    )
    return best.text if best is not None else ""


def question_pairs(directory: Path) -> list[dict]:
    """Pairs from every question file of `directory` (see the module docstring)."""
    pairs = []
    for query in load_questions(directory, part="all").queries:
        for target in (t for t in query.gold if t.primary):
            found = _target_unit(query.corpus, target)
            if found is None:
                print(
                    f"{query.query_id}: {query.corpus}/{target.path} has no unit for "
                    f"{target.qualname or target.lines or 'the file'}: no pair",
                    file=sys.stderr,
                )
                continue
            pairs.append(
                {
                    "query": query.query,
                    "code": found.text,
                    "negative": _negative(query, found.text),
                    "source": f"{SOURCE}:{query.corpus}",
                }
            )
    return pairs
