"""How alike two pieces of code are, without a model: by the words of their identifiers
and by their shape (the syntax tree's node kinds). Both are cosines in [0, 1] that mean the
same in every repository, so results of several repositories merge on them (`search.similar`).

The shape survives what the words do not (every local renamed, a copy reformatted), the words
survive what the shape does not (a body rewritten around the same calls); which of them earn a
place next to the code vector, and with what weight, was measured on the vendored-copy set
(docs/BENCHMARKS.md "Code to code").
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Parser

from indexing.lexical import tokenize
from indexing.parsing import parse_tree

# Node kinds in pre-order, as n-grams up to this length: unigrams alone say which constructs
# appear, the longer grams how they nest and follow one another.
SHAPE_NGRAMS = 3
# Cut before parsing: a pasted file is compared by its first screens, as units are.
MAX_CHARS = 6000
# The kinds that say nothing of structure: every piece of code is full of them (or, the root,
# has exactly one).
_IGNORED_KINDS = frozenset(
    {"module", "identifier", "comment", "string_content", "string_start", "string_end"}
)


@lru_cache(maxsize=32)
def _parser(language: str) -> Parser | None:
    from indexing.languages import language_named  # loads the grammar registry on first use

    spec = language_named(language)
    return None if spec is None else Parser(spec.language())


def node_kinds(code: str, language: str = "python") -> list[str]:
    """The named syntax nodes of `code` in pre-order, parsed by its language's grammar (none
    for a documentation or configuration section). Tree-sitter parses fragments too (a pasted
    method body, a snippet with a syntax error), where `ast` would give up."""
    source = textwrap.dedent(code[:MAX_CHARS]).encode("utf-8", errors="replace")
    if language == "python":
        tree = parse_tree(source)
    elif (parser := _parser(language)) is not None:
        tree = parser.parse(source)
    else:
        return []
    cursor = tree.walk()
    kinds: list[str] = []
    descending = True
    while True:
        if descending:
            node = cursor.node
            if node.is_named and node.type not in _IGNORED_KINDS:
                kinds.append(node.type)
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            descending = True
            continue
        if not cursor.goto_parent():
            return kinds
        descending = False


@dataclass(frozen=True)
class Profile:
    """Counted features of one piece of code and their vector norm, computed once: a query
    meets a candidate, and a candidate meets many queries."""

    counts: Counter
    norm: float

    @classmethod
    def of(cls, counts: Counter) -> Profile:
        return cls(counts, math.sqrt(sum(v * v for v in counts.values())))


def _cosine(a: Profile, b: Profile) -> float:
    if not a.norm or not b.norm:
        return 0.0
    small, large = (a.counts, b.counts) if len(a.counts) < len(b.counts) else (b.counts, a.counts)
    dot = sum(v * large.get(key, 0) for key, v in small.items())
    return dot / (a.norm * b.norm)


@lru_cache(maxsize=20000)
def code_shape(code: str, language: str = "python") -> Profile:
    """The n-grams of `code`'s node kinds, counted. Cached: a unit's code is met again by every
    query it is a candidate of."""
    kinds = node_kinds(code, language)
    grams: Counter = Counter()
    for n in range(1, SHAPE_NGRAMS + 1):
        grams.update("/".join(kinds[i : i + n]) for i in range(len(kinds) - n + 1))
    return Profile.of(grams)


@lru_cache(maxsize=20000)
def code_words(code: str) -> Profile:
    """The words of `code`'s identifiers (`maxRetries` -> max, retries), as BM25 indexes them."""
    return Profile.of(Counter(tokenize(code[:MAX_CHARS])))


def shape_similarity(a: str, b: str, a_language: str = "python", b_language: str = "") -> float:
    """Each parsed in its own language (`b` in `a`'s unless told): code of two languages
    shares few node kinds, so this is near 0 across languages."""
    return _cosine(code_shape(a, a_language), code_shape(b, b_language or a_language))


def word_similarity(a: str, b: str) -> float:
    return _cosine(code_words(a), code_words(b))
