"""Per-candidate features for the learned ranker: a pure function of the query and the candidates
that fast mode's streams found, computed the same way at training and at search time.

What is deliberately *not* a feature: whether a unit has a docstring, and anything computed from
the docstring of the unit itself. The package benchmark builds its queries from docstrings and
strips them from the gold units (CodeSearchNet's method), so on that data "has no docstring" is
a near-perfect and entirely spurious sign of the answer; a ranker that learned it would push
well-documented code down for real users. The class's and the module's docstrings are kept
(they are never stripped), and so is the code vector, whose text includes the docstring as a
reader sees it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np
from django.conf import settings

from indexing.languages import language_named
from indexing.lexical import code_tokens, tokenize
from indexing.unit_text import identifier_words, path_text
from search.filters import is_test_path
from search.ranking.word_memo import UnitWords, WordMemo


class RankedUnit(Protocol):
    path: str
    kind: str  # a documentation or configuration `section` is none of the one-hot kinds
    name: str
    qualname: str
    signature: str
    docstring: str
    code: str
    class_name: str
    class_summary: str
    module_summary: str
    start_line: int
    end_line: int
    decorators: Sequence[str]


@dataclass(frozen=True)
class Candidate:
    unit: RankedUnit
    cos_code: float  # cosine of the query with the unit's code vector
    cos_header: float  # ... with its header vector
    bm25: float  # 0 when the lexical stream did not find it


FEATURES = (
    "cos_code",
    "cos_header",
    "cos_code_gap",
    "cos_header_gap",
    "cos_code_rank",
    "cos_header_rank",
    "cos_sum_rank",
    "bm25",
    "bm25_share",
    "bm25_rank",
    "name_hits",
    "name_share_of_query",
    "name_share_of_name",
    "qualname_share_of_query",
    "class_share_of_query",
    "path_share_of_query",
    "signature_share_of_query",
    "code_share_of_query",
    "context_share_of_query",
    "query_words",
    "name_words",
    "body_lines",
    "path_depth",
    "is_function",
    "is_method",
    "is_class",
    "is_test",
    "is_private",
    "is_special",
    "is_property",
    "is_overload",
    "same_name_candidates",
)


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def stems(words: Sequence[str]) -> set[str]:
    return set(_stemmer().stemWords(list(words))) if words else set()


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 for the highest value; ties share the better rank."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    return ranks


# Every unit's words by id, packed: those of the units met, and those a generation's saved pack
# holds (search.ranking.word_packs, read by search.warmup). About 240 bytes a unit: 96 MB for the
# 418,850 units of twenty large repositories (docs/BENCHMARKS.md, "All repositories at once").
MEMO = WordMemo(settings.REPORIFT["WORD_MEMO_UNITS"])


def unit_words(unit: RankedUnit) -> UnitWords:
    # Kept on the unit itself: rows are written once and never changed (indexing.unit_cache),
    # and a cached row comes back as the same object query after query, so the words are one
    # attribute read away.
    attributes = getattr(unit, "__dict__", None)
    if attributes is not None and (kept := attributes.get("_ranking_words")) is not None:
        return kept
    pk = getattr(unit, "pk", None)
    if pk is None:  # the evaluation's snippet corpora: no rows, no ids
        words = _words_of(unit)
    else:
        # A row read again after the cache let it go (a search over more units than it holds)
        # is unpacked, not split and stemmed again.
        guard = {"start_line": unit.start_line, "code_length": len(unit.code)}
        words = MEMO.get(pk, **guard)
        if words is None:
            words = _words_of(unit, keep=False)
            MEMO.put(pk, words, **guard)
    if attributes is not None:
        attributes["_ranking_words"] = words
    return words


def split_words(unit: RankedUnit) -> UnitWords:
    """A unit's words computed afresh, kept nowhere (what a saved pack is made of)."""
    return _words_of(unit, keep=False)


def _words_of(unit: RankedUnit, *, keep: bool = True) -> UnitWords:
    """`keep`: through the cache by texts (units the memo cannot hold: they have no id)."""
    split = _unit_words if keep else _unit_words.__wrapped__
    return split(
        unit.name,
        unit.qualname,
        unit.class_name,
        unit.path,
        unit.signature,
        unit.code,
        unit.docstring,
        f"{unit.class_summary} {unit.module_summary}",
        unit.end_line - unit.start_line + 1,
        " ".join(unit.decorators),
        # Units of the evaluation's snippet corpora carry no language: they are Python.
        getattr(unit, "language", "python"),
    )


# About 6 KB a unit as objects: units without an id (the evaluation's snippet corpora), by text.
@lru_cache(maxsize=settings.REPORIFT["CACHED_UNITS"])
def _unit_words(
    name: str,
    qualname: str,
    class_name: str,
    path: str,
    signature: str,
    code: str,
    docstring: str,
    context: str,
    lines: int,
    decorators: str,
    language: str = "python",
) -> UnitWords:
    # Tokenising and stemming a unit's code is most of the features' cost, and the same units
    # come back across queries (a repository's popular functions): computed once per text.
    # Keyed on the texts themselves, so an edited unit never meets a stale entry.
    span = _docstring_span(code, docstring, signature, language)
    without_docstring = code if span is None else code[: span[0]] + code[span[1] :]
    name_words = identifier_words(name)
    spec = language_named(language)
    return UnitWords(
        name=frozenset(stems(name_words)),
        qualname=frozenset(stems(identifier_words(qualname))),
        class_name=frozenset(stems(identifier_words(class_name))),
        path=frozenset(stems(identifier_words(path_text(path)))),
        signature=frozenset(stems(code_tokens(signature, language))),
        code=frozenset(stems(code_tokens(without_docstring, language))),
        text=frozenset(stems(code_tokens(code, language))),
        context=frozenset(stems(tokenize(context))),
        name_words=len(name_words),
        # Lines as if the docstring were one line (as the benchmark's `pass` is): see the
        # module docstring for why its length must not show.
        body_lines=max(lines - (code.count("\n", *span) if span else 0), 1),
        is_private=spec is not None and spec.is_private(name, signature),
        is_special=spec is not None and spec.is_special(name),
        is_property="property" in decorators,
        is_overload="overload" in decorators,
    )


def _static_columns(unit: RankedUnit, words: UnitWords) -> tuple:
    """The columns from `name_words` to `is_overload`: facts of the unit alone, the same for
    every query, so kept on the unit beside its words (`unit_words`)."""
    attributes = getattr(unit, "__dict__", None)
    if attributes is not None and (kept := attributes.get("_ranking_columns")) is not None:
        return kept
    columns = (
        words.name_words,
        math.log1p(words.body_lines),
        unit.path.count("/"),
        unit.kind == "function",
        unit.kind == "method",
        unit.kind == "class",
        is_test_path(unit.path),
        words.is_private,
        words.is_special,
        words.is_property,
        words.is_overload,
    )
    if attributes is not None:
        attributes["_ranking_columns"] = columns
    return columns


def feature_matrix(query: str, candidates: Sequence[Candidate]) -> np.ndarray:
    """One row per candidate, columns in `FEATURES` order."""
    n = len(candidates)
    if n == 0:
        return np.zeros((0, len(FEATURES)), dtype=np.float32)
    query_stems = stems(tokenize(query))
    cos_code = np.array([c.cos_code for c in candidates])
    cos_header = np.array([c.cos_header for c in candidates])
    bm25 = np.array([c.bm25 for c in candidates])
    # Python numbers from here on: numpy scalars cost more to index and to convert back.
    code_rank, header_rank = _ranks(cos_code).tolist(), _ranks(cos_header).tolist()
    bm25_rank = np.where(bm25 > 0, _ranks(bm25), n + 1).tolist()
    best_code, best_header, best_bm25 = (float(v.max()) for v in (cos_code, cos_header, bm25))
    names = Counter(c.unit.name for c in candidates)
    query_words = len(query_stems)
    # Shares of the query's words, inlined below (eight a candidate, every search); with no
    # words every share is 0 / 1.
    words_of_query = query_words or 1
    rows = []  # one tuple a row, converted once: assigning row by row costs more than scoring
    for row, candidate in enumerate(candidates):
        unit = candidate.unit
        words = unit_words(unit)
        name = words.name
        name_hits = len(query_stems & name)
        rows.append(
            (
                candidate.cos_code,
                candidate.cos_header,
                best_code - candidate.cos_code,
                best_header - candidate.cos_header,
                code_rank[row],
                header_rank[row],
                code_rank[row] + header_rank[row],
                candidate.bm25,
                candidate.bm25 / best_bm25 if best_bm25 > 0 else 0.0,
                bm25_rank[row],
                name_hits,
                name_hits / words_of_query,
                name_hits / len(name) if name else 0.0,
                len(query_stems & words.qualname) / words_of_query,
                len(query_stems & words.class_name) / words_of_query,
                len(query_stems & words.path) / words_of_query,
                len(query_stems & words.signature) / words_of_query,
                len(query_stems & words.code) / words_of_query,
                len(query_stems & words.context) / words_of_query,
                query_words,
                *_static_columns(unit, words),
                names[unit.name] - 1,
            )
        )
    return np.array(rows, dtype=np.float32)


def _docstring_span(
    code: str, docstring: str, signature: str = "", language: str = "python"
) -> tuple[int, int] | None:
    """Where the docstring is in the code. In Python it is the body's first statement, so the
    first triple-quoted string is it (Elixir's `@doc \"\"\"` too). Elsewhere it is the comment
    above the definition, which the unit's code starts with: everything before the signature
    (its last line end left out, so that it counts as one line, as a docstring does)."""
    if not docstring:
        return None
    starts = [i for i in (code.find('"""'), code.find("'''")) if i >= 0]
    if starts:
        start = min(starts)
        end = code.find(code[start : start + 3], start + 3)
        return None if end < 0 else (start, end + 3)
    if language == "python" or not signature:
        return None
    head = code.find(signature.split("\n", 1)[0])
    return (0, code.rfind("\n", 0, head)) if head > 0 and "\n" in code[:head] else None
