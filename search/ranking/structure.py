"""What the shape of a repository says about a ranked list: a pure function applied after the
learned ranker.

The ranker learned from docstring sentences and web questions, one unit at a time. Developers
also type names and ask how a part works, where three facts a unit-by-unit score cannot see
decide the answer (docs/BENCHMARKS.md, "Developer questions"):

- a name typed as the query is answered by the unit that defines it, not by the units that
  mention it most (a subclass's method, a property of the same name in lower case);
- a file named for the topic (`auth.py` for "authentication and credentials") is where a reader
  starts;
- a top 10 spent on one file's methods hides the second file that answers too;
- a module-level block (constants, data tables, a `__main__` block) matches many words but is
  rarely what a sentence asks for, unless it defines the name asked about.

Each rule adds to (or takes from) the ranker's standardised score, with strengths chosen on the
developer questions' tuning part and checked on the package benchmark and CoSQA dev.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_WORD = re.compile(r"[a-z]+")
# A word shorter than this says too little to match a file name by prefix ("io", "db" do
# match exactly).
_PREFIX_CHARS = 4
# File stems that name no topic.
_GENERIC_STEMS = frozenset({"__init__", "utils", "util", "base", "core", "main", "misc", "common"})


class ShapedUnit(Protocol):
    path: str
    kind: str
    name: str
    qualname: str
    defines: Sequence[str]  # the names it binds (indexing.parsing)


@dataclass(frozen=True)
class Strengths:
    defines: float = 3.0  # the unit defines the name typed as the query
    mentioned: float = 0.0  # ... a code-like name inside a sentence
    file_topic: float = 0.0  # the file's name is one of the query's words
    same_file: float = 0.0  # taken off each further unit of a file already listed
    # Taken off a module block that does not define the queried name: the ranker never saw
    # module-level code, and long blocks of constants and data match many words.
    module: float = 0.0


@dataclass(frozen=True)
class QueryShape:
    name: str  # the name typed as the whole query ("Session.send" -> "send"), or ""
    dotted: str  # the whole dotted name ("Session.send"), or ""
    mentioned: frozenset[str]  # code-like names inside a sentence (CamelCase, snake_case)
    words: frozenset[str]  # the query's lower-case words, for file names


def query_shape(query: str) -> QueryShape:
    text = query.strip().removesuffix("()")
    for keyword in ("class ", "def "):
        text = text.removeprefix(keyword)
    is_name = _NAME.fullmatch(text) is not None
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", query)
    mentioned = frozenset(
        t.rstrip(".").split(".")[-1]
        for t in tokens
        if not is_name and (_is_camel(t) or ("_" in t.strip("_")) or "." in t.rstrip("."))
    )
    return QueryShape(
        name=text.split(".")[-1] if is_name else "",
        dotted=text if is_name and "." in text else "",
        mentioned=mentioned - {""},
        words=frozenset(_WORD.findall(query.lower())),
    )


def _is_camel(token: str) -> bool:
    # StaticModel, getValue, HTTPAdapter; not README or Django.
    return re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", token) is not None


def defines(unit: ShapedUnit, name: str) -> bool:
    return unit.name == name or name in unit.defines


def definition_match(unit: ShapedUnit, shape: QueryShape) -> float:
    """1 when the unit defines the queried name (the dotted name, exactly, when one was
    typed), 0.5 when it defines the name under another parent, else 0."""
    if not shape.name or not defines(unit, shape.name):
        return 0.0
    if not shape.dotted:
        return 1.0
    return (
        1.0 if unit.qualname == shape.dotted or unit.qualname.endswith("." + shape.dotted) else 0.5
    )


def file_topic(path: str, words: frozenset[str]) -> bool:
    """The file's name is a word of the query, or the start of one (`auth.py` for
    "authentication", `aliases.py` for "alias")."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py").lower()
    if stem == "__init__":
        parts = path.rsplit("/", 2)
        stem = parts[-2].lower() if len(parts) > 1 else stem
    stem = stem.strip("_")
    if not stem or stem in _GENERIC_STEMS:
        return False
    stems = {stem, stem.removesuffix("s"), stem.removesuffix("es")}
    for word in words:
        if word in stems or (
            len(word) >= _PREFIX_CHARS and any(len(s) >= 3 and word.startswith(s) for s in stems)
        ):
            return True
    return False


def _lifts(
    unit: ShapedUnit, shape: QueryShape, strengths: Strengths, *, topic: bool
) -> list[tuple[float, str]]:
    """What each rule adds to (or takes from) a unit's score, with the words that say why
    ("" for a step back, which needs no telling). `topic`: the unit's file is named for the
    query's topic (`file_topic`, asked once per file by the caller)."""
    lifts = []
    match = definition_match(unit, shape)
    if strengths.defines and match:
        lifts.append((strengths.defines * match, f"defines '{shape.name}'"))
    if strengths.mentioned and (named := sorted(n for n in shape.mentioned if defines(unit, n))):
        lifts.append((strengths.mentioned, f"defines '{named[0]}'"))
    if strengths.file_topic and topic:
        lifts.append((strengths.file_topic, "file named for the topic"))
    if strengths.module and unit.kind == "module" and not match:
        lifts.append((-strengths.module, ""))
    return lifts


def why(unit: ShapedUnit, shape: QueryShape, strengths: Strengths) -> str:
    """The rules that lifted a unit, in words ("" when none did)."""
    lifts = _lifts(unit, shape, strengths, topic=file_topic(unit.path, shape.words))
    return "; ".join(words for _, words in lifts if words)


def shape_ranked(
    query: str,
    ranked: Sequence[tuple[ShapedUnit, float]],
    strengths: Strengths,
) -> list[tuple[ShapedUnit, float, str]]:
    """`ranked` (units with the ranker's standardised scores, best first) re-ordered by the
    rules of the module docstring: each unit with its adjusted score and the rules that lifted
    it, in words ("" when none did)."""
    shape = query_shape(query)
    topics: dict[str, bool] = {}
    adjusted, words = [], {}
    for unit, score in ranked:
        if strengths.file_topic and unit.path not in topics:
            topics[unit.path] = file_topic(unit.path, shape.words)
        lifts = _lifts(unit, shape, strengths, topic=topics.get(unit.path, False))
        adjusted.append((unit, score + sum(amount for amount, _ in lifts)))
        words[id(unit)] = "; ".join(text for _, text in lifts if text)
    if strengths.same_file:
        adjusted = _spread_files(adjusted, strengths.same_file)
    else:
        adjusted.sort(key=lambda pair: -pair[1])
    return [(unit, score, words[id(unit)]) for unit, score in adjusted]


def shaped_order(
    query: str,
    ranked: Sequence[tuple[ShapedUnit, float]],
    strengths: Strengths,
) -> list[tuple[ShapedUnit, float]]:
    """`shape_ranked` without the words."""
    return [(unit, score) for unit, score, _ in shape_ranked(query, ranked, strengths)]


def _spread_files(
    scored: list[tuple[ShapedUnit, float]], step: float
) -> list[tuple[ShapedUnit, float]]:
    """Greedy: the next result is the best after taking `step` off per unit already listed
    from its file. Within a file every unit pays the same, so the choice is always among the
    files' best remaining units: a heap of those heads, ties to the higher raw score (then
    the earlier), as a scan of every remaining unit would choose."""
    ranked = sorted(scored, key=lambda pair: -pair[1])  # stable: ties keep their order
    by_file: dict[str, list[int]] = {}  # each file's places in `ranked`, best first
    for place, (unit, _) in enumerate(ranked):
        by_file.setdefault(unit.path, []).append(place)
    heads = [(-ranked[places[0]][1], places[0], path, 0) for path, places in by_file.items()]
    heapq.heapify(heads)
    out: list[tuple[ShapedUnit, float]] = []
    while heads:
        negative, place, path, listed = heapq.heappop(heads)
        out.append((ranked[place][0], -negative))
        places = by_file[path]
        if listed + 1 < len(places):
            following = places[listed + 1]
            value = ranked[following][1] - step * (listed + 1)
            heapq.heappush(heads, (-value, following, path, listed + 1))
    return out
