"""What the shape of a repository says about a ranked list: a pure function applied after the
learned ranker.

The ranker learned from docstring sentences and web questions, one unit at a time. Developers
also type names and ask how a part works, where three facts a unit-by-unit score cannot see
decide the answer (docs/BENCHMARKS.md, "Developer questions"):

- a name typed as the query is answered by the unit that defines it, not by the units that
  mention it most (a subclass's method, a property of the same name in lower case);
- a file named for the topic (`auth.py` for "authentication and credentials", `yaml_adapter.js`
  for "the yaml adapter", `date_parse.c` for "date parsing helpers") is where a reader starts:
  how much of the question a path names, rare path words counting most, lifts all of its
  units (`search.ranking.paths`);
- a central file with many units on the topic (a large utilities file, a module's core) is the
  answer though none of its units is the best match: what a file's units score for the
  question's words all together lifts it (`search.ranking.files.lexical_file_evidence`);
- a top 10 spent on one file's methods hides the second file that answers too: for a question
  in words (not a name) the first results name different files;
- a module-level block (constants, data tables, a `__main__` block) matches many words but is
  rarely what a sentence asks for, unless it defines the name asked about or opens the file with
  its documentation (a header comment, a package or module docstring: what the file is for);
- a question that asks how a part works is answered by files: for those the list is spread
  over files harder and a file is weighed as a whole (`search.ranking.files`);
- a section of documentation or configuration that speaks of a feature is not where the
  feature is done: it leads only when the question asks for a page or a reader's task
  (installing, setting up, the default settings), not when it only names a format or a
  configuration the code reads ("load a yaml config file");
- a benchmark, an example or a fixture uses the words of what it exercises: it comes after
  the definitions; so does an interface in a file of its own (C#'s `IRouteFinder.cs`), which
  repeats its implementation's words without its code.

Each rule adds to (or takes from) the ranker's standardised score, with strengths chosen on the
developer questions' tuning part and checked on the package benchmark and CoSQA dev; the
path, file-mass and spreading rules for questions in words on the tuning parts of the
large-repository, languages and developer question sets by the file figure
(`benchmarks.shape_replay`, docs/BENCHMARKS.md).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Protocol

from indexing.text_units import is_documentation_page
from indexing.unit_text import file_stem, file_suffix
from search.filters import is_auxiliary_path, is_interface_path
from search.ranking.docs_questions import asks_about_docs
from search.ranking.files import (
    asks_for_files,
    file_evidence,
    is_opening,
    lexical_file_evidence,
)
from search.ranking.paths import PathWords, path_topic, topic_words

# A name as typed, once its separators are dots: `Session.send`, `Enum.map/2`, `empty?`,
# `foldl'`, `$el` (a sigil is part of a PHP or JavaScript name).
_SEGMENT = r"[$@]?[A-Za-z_][A-Za-z0-9_$]*[?!']?"
_NAME = re.compile(rf"{_SEGMENT}(?:\.{_SEGMENT})*(?:/\d+)?")
# Qualifying separators of other languages, read as dots: Rust, C++, PHP and Ruby `::`, Ruby and
# JavaScript docs' `Foo#bar`, PHP's `->` and namespaces' `\`, Lua's `obj:method`. Only between
# two name characters, so that a sentence's "#45" or "note:" stays as it is.
_SEPARATOR = re.compile(r"(?<=[\w?!'])(?:::|->|#|\\)(?=[$@A-Za-z_])")
_LUA_METHOD = re.compile(r"(?<=\w):(?=[A-Za-z_])")
_ARITY = re.compile(r"/\d+$")
# The parser's suffix for a second definition of one qualname (`Pretty.pretty#2`).
_DUPLICATE = re.compile(r"#\d+$")
# Words typed before a name that say what it is ("class Foo", "fn parse", "func (r) Handle").
_KEYWORDS = ("class ", "def ", "func ", "fn ", "function ", "fun ", "struct ", "interface ")
_KEYWORDS += ("trait ", "enum ", "type ", "module ", "defmodule ", "impl ", "object ")
_WORD = re.compile(r"[a-z]+")
# A word shorter than this says too little to match a file name by prefix ("io", "db" do
# match exactly).
_PREFIX_CHARS = 4
# File stems that name no topic.
_GENERIC_STEMS = frozenset({"__init__", "utils", "util", "base", "core", "main", "misc", "common"})
# Files that stand for their folder (a package's, module's or crate's entry), by extension.
_FOLDER_FILES = {".py": "__init__", ".rs": "mod", ".lua": "init"}
_FOLDER_FILES |= dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx"), "index")


class ShapedUnit(Protocol):
    path: str
    kind: str
    name: str
    qualname: str
    defines: Sequence[str]  # the names it binds (indexing.parsing)
    docstring: str


@dataclass(frozen=True)
class Strengths:
    defines: float = 3.0  # the unit defines the name typed as the query
    mentioned: float = 0.0  # ... a code-like name inside a sentence
    file_topic: float = 0.0  # the file's name is one of the query's words
    same_file: float = 0.0  # taken off each further unit of a file already listed
    # Taken off a module block that does not define the queried name: the ranker never saw
    # module-level code, and long blocks of constants and data match many words.
    module: float = 0.0
    # For a question that asks how a part works (`search.ranking.files`): the step taken off
    # each further unit of a file (instead of `same_file`), and what a file's share of the
    # first `file_window` candidates adds per doubling.
    broad_same_file: float = 0.0
    file_mass: float = 0.0
    file_window: int = 30
    # What a file's opening lines (the module block with its documentation) get back of the
    # module step, for every question: a sentence from a header comment finds its file.
    opening: float = 0.0
    # Taken off a documentation or configuration section when the question does not ask about
    # docs, setup or configuration, and off a unit of a benchmark, example or fixture.
    prose: float = 0.0
    # Taken off a section of a page of prose (a guide, a README) on top of `prose`: a page
    # tells a feature in the words a question uses, a configuration file only names it.
    page: float = 0.0
    auxiliary: float = 0.0
    interface: float = 0.0  # taken off a unit of an interface file that does not define the name
    # Added to every unit of a file per unit of `search.ranking.paths.path_topic`: how much of
    # the question its path names, rare words counting most (needs the repository's path words).
    path_topic: float = 0.0
    # For a sentence that asks neither how a part works nor for a name: the step taken off each
    # further unit of a file (instead of `same_file`), so that the first results name
    # different files.
    sentence_same_file: float = 0.0
    # For a question in words: what a file's BM25 scores over all its units add to its units,
    # per standard deviation above the candidate files' mean (`files.lexical_file_evidence`).
    lexical_file_mass: float = 0.0


@dataclass(frozen=True)
class QueryShape:
    name: str  # the name typed as the whole query ("Session.send" -> "send"), or ""
    dotted: str  # the whole dotted name ("Session.send"), or ""
    mentioned: frozenset[str]  # code-like names inside a sentence (CamelCase, snake_case)
    words: frozenset[str]  # the query's lower-case words, for file names
    asks_docs: bool = False  # about docs, setup or configuration (`asks_about_docs`)

    @cached_property
    def word_starts(self) -> frozenset[str]:
        """`word_starts(words)`, for `file_topic`: made once per shape (shapes are cached)."""
        return word_starts(self.words)


def normal_name(name: str) -> str:
    """A qualified name with every language's separators as dots: `Foo::bar`, `Foo#bar`,
    `Foo->bar` and `Foo.bar` are one name (`Timer:start` too, when the whole text is a name)."""
    return _SEPARATOR.sub(".", name)


def bare_name(name: str) -> str:
    """The name without an Elixir arity: `map/2` -> `map`."""
    return _ARITY.sub("", name)


@lru_cache(maxsize=1024)
def query_shape(query: str) -> QueryShape:
    # Asked twice a search (the definitions stream, the shape rules), and again when the same
    # query comes back; a shape is frozen, so one may serve them all.
    text = normal_name(query.strip().removesuffix("()"))
    for keyword in _KEYWORDS:
        text = text.removeprefix(keyword)
    if _NAME.fullmatch(text) is None and _NAME.fullmatch(lua := _LUA_METHOD.sub(".", text)):
        text = lua
    is_name = _NAME.fullmatch(text) is not None
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", normal_name(query))
    mentioned = frozenset(
        t.rstrip(".").split(".")[-1]
        for t in tokens
        if not is_name and (_is_camel(t) or ("_" in t.strip("_")) or "." in t.rstrip("."))
    )
    words = frozenset(_WORD.findall(query.lower()))
    return QueryShape(
        name=text.split(".")[-1] if is_name else "",
        dotted=text if is_name and "." in text else "",
        mentioned=mentioned - {""},
        words=words,
        asks_docs=asks_about_docs(query),
    )


def _is_camel(token: str) -> bool:
    # StaticModel, getValue, HTTPAdapter; not README or Django.
    return re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", token) is not None


def defines(unit: ShapedUnit, name: str) -> bool:
    """The unit binds `name`: its own name, or a name a module block assigns."""
    return same_name(unit.name, name) or name in unit.defines


def same_name(have: str, want: str) -> bool:
    """A unit named `have` is what a query naming `want` asks for: the same name, or the name
    without what a query may add or leave off: an Elixir arity (`map` asks for `map/2`), a
    question's `?` (`empty?` asks for `empty`), a sigil (`$el`, `@count`)."""
    if have == want:
        return True
    if "/" in have and "/" not in want and bare_name(have) == want:
        return True
    return have in (want[:-1] if want[-1:] in "?!" else "", want.lstrip("$@%"))


def name_variants(name: str) -> list[str]:
    """The spellings a definition of `name` may be stored under (`same_name`'s exact cases)."""
    variants = [name, name[:-1] if name[-1:] in "?!" else "", name.lstrip("$@%")]
    return [v for v in dict.fromkeys(variants) if v]


def definition_match(unit: ShapedUnit, shape: QueryShape) -> float:
    """1 when the unit defines the queried name (the dotted name, exactly, when one was
    typed), 0.5 when it defines the name under another parent, else 0. Separators count as
    dots on both sides, so `Router::handle` finds a Rust `Router::handle` as `Router.handle`
    would; an arity left off the query matches every arity."""
    if not shape.dotted:
        if not shape.name:
            return 0.0
        return 1.0 if defines(unit, shape.name) else 0.0
    qualname = _DUPLICATE.sub("", normal_name(unit.qualname))
    if not _has_arity(shape.dotted):
        qualname = bare_name(qualname)
    exact = qualname == shape.dotted or qualname.endswith("." + shape.dotted)
    # A dotted name may be one unit's whole name (an Elixir module `Shop.Stock`).
    if exact and (defines(unit, shape.name) or unit.name == shape.dotted):
        return 1.0
    return 0.5 if defines(unit, shape.name) else 0.0


def _has_arity(name: str) -> bool:
    return _ARITY.search(name) is not None


def word_starts(words: frozenset[str]) -> frozenset[str]:
    """Every start of three or more characters of the query's words long enough to be matched
    by prefix: a file's name starts one of them when it is in this set (one lookup per file,
    instead of every word against every file)."""
    return frozenset(
        word[:end]
        for word in words
        if len(word) >= _PREFIX_CHARS
        for end in range(3, len(word) + 1)
    )


def file_topic(path: str, shape: QueryShape) -> bool:
    """The file's name is a word of the query, or the start of one (`auth.py` for
    "authentication", `aliases.py` for "alias"). A file that stands for its folder
    (`__init__.py`, `index.ts`, `mod.rs`, `init.lua`) is named by the folder."""
    stems, prefixes = _topic_stems(path)
    if not stems:
        return False
    if not stems.isdisjoint(shape.words):
        return True
    return bool(prefixes) and not shape.word_starts.isdisjoint(prefixes)


@lru_cache(maxsize=65536)
def _topic_stems(path: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names a file's topic goes by, and those long enough to match a word's start
    (asked of every candidate of every search)."""
    stem = file_stem(path).lower()
    if stem == _FOLDER_FILES.get(file_suffix(path), "__init__"):
        parts = path.rsplit("/", 2)
        stem = parts[-2].lower() if len(parts) > 1 else stem
    stem = stem.strip("_")
    if not stem or stem in _GENERIC_STEMS:
        return frozenset(), ()
    stems = frozenset({stem, stem.removesuffix("s"), stem.removesuffix("es")})
    return stems, tuple(sorted(s for s in stems if len(s) >= 3))


@lru_cache(maxsize=65536)
def _is_page(path: str) -> bool:
    return is_documentation_page(path)


def _lifts(
    unit: ShapedUnit, shape: QueryShape, strengths: Strengths, *, topic: bool, named: float = 0.0
) -> list[tuple[float, str]]:
    """What each rule adds to (or takes from) a unit's score, with the words that say why
    ("" for a step back, which needs no telling). `topic`: the unit's file is named for the
    query's topic (`file_topic`, asked once per file by the caller); `named`: how much of the
    question its path names (`search.ranking.paths.path_topic`, likewise)."""
    lifts = []
    match = definition_match(unit, shape)
    if strengths.defines and match:
        lifts.append((strengths.defines * match, f"defines '{shape.name}'"))
    if strengths.mentioned and (named := sorted(n for n in shape.mentioned if defines(unit, n))):
        lifts.append((strengths.mentioned, f"defines '{named[0]}'"))
    if strengths.file_topic and topic:
        lifts.append((strengths.file_topic, "file named for the topic"))
    if strengths.path_topic and named:
        lifts.append((strengths.path_topic * named, "its path names the topic"))
    if strengths.module and unit.kind == "module" and not match:
        lifts.append((-strengths.module, ""))
    if unit.kind == "section" and not shape.asks_docs:
        step = strengths.prose + (strengths.page if _is_page(unit.path) else 0.0)
        if step:
            lifts.append((-step, ""))
    if strengths.auxiliary and not match and is_auxiliary_path(unit.path):
        lifts.append((-strengths.auxiliary, ""))
    if strengths.interface and not match and is_interface_path(unit.path):
        lifts.append((-strengths.interface, ""))
    if strengths.opening and is_opening(unit):
        lifts.append((strengths.opening, "the file's opening lines"))
    return lifts


def why(unit: ShapedUnit, shape: QueryShape, strengths: Strengths) -> str:
    """The rules that lifted a unit, in words ("" when none did)."""
    lifts = _lifts(unit, shape, strengths, topic=file_topic(unit.path, shape))
    return "; ".join(words for _, words in lifts if words)


def shape_ranked(
    query: str,
    ranked: Sequence[tuple[ShapedUnit, float]],
    strengths: Strengths,
    *,
    paths: PathWords | None = None,
    lexical_mass: Mapping[str, float] | None = None,
) -> list[tuple[ShapedUnit, float, str]]:
    """`ranked` (units with the ranker's standardised scores, best first) re-ordered by the
    rules of the module docstring: each unit with its adjusted score and the rules that lifted
    it, in words ("" when none did). `paths`: the repository's path words, for `path_topic`;
    `lexical_mass`: each candidate file's BM25 scores over all its units, added up, for
    `lexical_file_mass` (without them those rules are off)."""
    shape = query_shape(query)
    broad = asks_for_files(query, is_name=bool(shape.name))
    sentence = not broad and not shape.name
    units = [unit for unit, _ in ranked]
    mass = strengths.file_mass if broad else 0.0
    evidence = file_evidence(units, window=strengths.file_window, strength=mass)
    if lexical_mass and not shape.name:
        found = lexical_file_evidence(
            [unit.path for unit in units], lexical_mass, strength=strengths.lexical_file_mass
        )
        evidence = {
            path: evidence.get(path, 0.0) + found.get(path, 0.0) for path in {*evidence, *found}
        }
    topics: dict[str, bool] = {}
    named: dict[str, float] = {}
    words_asked = topic_words(shape.words) if paths and strengths.path_topic else frozenset()
    adjusted, words = [], {}
    for unit, score in ranked:
        if strengths.file_topic and unit.path not in topics:
            topics[unit.path] = file_topic(unit.path, shape)
        if words_asked and unit.path not in named:
            named[unit.path] = path_topic(unit.path, words_asked, paths)
        lifts = _lifts(
            unit,
            shape,
            strengths,
            topic=topics.get(unit.path, False),
            named=named.get(unit.path, 0.0),
        )
        lifts.append((evidence.get(unit.path, 0.0), ""))
        # Added up in order, as sum() would (the same float): most units have no lift at all.
        added, said = 0.0, []
        for amount, text in lifts:
            added += amount
            if text:
                said.append(text)
        adjusted.append((unit, score + added))
        words[id(unit)] = "; ".join(said)
    step = strengths.same_file
    if broad and strengths.broad_same_file:
        step = strengths.broad_same_file
    elif sentence and strengths.sentence_same_file:
        step = strengths.sentence_same_file
    if step:
        adjusted = _spread_files(adjusted, step)
    else:
        adjusted.sort(key=lambda pair: -pair[1])
    return [(unit, score, words[id(unit)]) for unit, score in adjusted]


def shaped_order(
    query: str,
    ranked: Sequence[tuple[ShapedUnit, float]],
    strengths: Strengths,
    *,
    paths: PathWords | None = None,
    lexical_mass: Mapping[str, float] | None = None,
) -> list[tuple[ShapedUnit, float]]:
    """`shape_ranked` without the words."""
    shaped = shape_ranked(query, ranked, strengths, paths=paths, lexical_mass=lexical_mass)
    return [(unit, score) for unit, score, _ in shaped]


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
