"""Why a result ranked where it did, in one short line, from what actually ranked it.

The learned ranker's per-feature contributions (each split's change in its tree's value on the
way to the result's leaf, credited to the split's feature: path attribution, which adds up to
the score exactly; `search.ranking.model`) say which signals lifted a result; the blend adds the
code cosine's own part. The two or three largest positive parts become words, with the query
words that matched where a signal is about words ("name words match 'retry'", "BM25 hit on
'max_retries'").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from indexing.lexical import tokenize
from search.ranking.features import FEATURES, RankedUnit, stems, unit_words

# Feature -> the signal it belongs to; features of one signal add up.
SIGNALS = {
    "code": ("cos_code", "cos_code_gap", "cos_code_rank", "cos_sum_rank"),
    "header": ("cos_header", "cos_header_gap", "cos_header_rank"),
    "bm25": ("bm25", "bm25_share", "bm25_rank"),
    "name": ("name_hits", "name_share_of_query", "name_share_of_name", "qualname_share_of_query"),
    "class": ("class_share_of_query",),
    "path": ("path_share_of_query",),
    "signature": ("signature_share_of_query",),
    "body": ("code_share_of_query",),
    "context": ("context_share_of_query",),
}
# Features (and the bias, last) by signal: a row of contributions times this adds each
# signal's features up in one product.
_BY_SIGNAL = np.zeros((len(FEATURES) + 1, len(SIGNALS)))
for _column, _features in enumerate(SIGNALS.values()):
    _BY_SIGNAL[[FEATURES.index(f) for f in _features], _column] = 1.0


@lru_cache(maxsize=256)
def _query_words(query: str) -> tuple[tuple[str, str], ...]:
    """The query's words as the user wrote them, each with its stem, first occurrence of a stem
    only (the same query is explained for each of its top results)."""
    seen: set[str] = set()
    out = []
    for word in tokenize(query):
        stem = next(iter(stems([word])), "")
        if stem not in seen:
            seen.add(stem)
            out.append((word, stem))
    return tuple(out)


def _matched(query: str, targets: frozenset[str]) -> list[str]:
    """Query words (as the user wrote them) whose stems are among `targets`."""
    return [word for word, stem in _query_words(query) if stem in targets][:3]


def _quoted(words: list[str]) -> str:
    return ", ".join(f"'{w}'" for w in words)


# Signal -> which of the unit's stemmed word sets (search.ranking.word_memo.UnitWords) it is
# about, and how its words are introduced.
_WORD_SIGNALS = {
    "name": ("qualname", "name words match"),
    "class": ("class_name", "class name matches"),
    "path": ("path", "file path matches"),
    "signature": ("signature", "signature mentions"),
    "body": ("text", "code mentions"),
    "context": ("context", "context mentions"),
}


def phrase(signal: str, query: str, unit: RankedUnit) -> str:
    if signal == "code":
        return "code close to the query"
    if signal == "header":
        return "name and signature close to the query"
    words = unit_words(unit)
    if signal == "bm25":
        matched = _matched(query, words.text)
        return f"BM25 hit on {_quoted(matched)}" if matched else "BM25 hit"
    field, lead = _WORD_SIGNALS[signal]
    matched = _matched(query, getattr(words, field))
    return f"{lead} {_quoted(matched)}" if matched else ""


def explain(
    *,
    query: str,
    unit: RankedUnit,
    contributions: np.ndarray,
    code_part: float,
    most: int = 3,
) -> str:
    """`contributions`: one row of the ranker's contributions (features, then the bias);
    `code_part`: what the blend's code-cosine term added, on the ranker's scale."""
    parts = dict(zip(SIGNALS, (contributions @ _BY_SIGNAL).tolist(), strict=True))
    parts["code"] += code_part
    ranked = sorted((p for p in parts.items() if p[1] > 0), key=lambda p: -p[1])
    words = [text for name, _ in ranked if (text := phrase(name, query, unit))][:most]
    return "; ".join(words) if words else "ranked by the learned ranker's overall score"


def stream_reason(stream_ranks: dict[str, int]) -> str:
    """For results ordered without the ranker (stream fusion): which streams found it, where."""
    names = {
        "S1": "code vector",
        "S6": "name vector",
        "S4": "BM25",
        "S2": "generated code",
        "S3": "generated functions",
        "S5": "augmented query",
        "S7": "definition by name",
    }
    found = sorted(stream_ranks.items(), key=lambda item: item[1])
    return "found by " + ", ".join(f"{names.get(s, s)} (#{r})" for s, r in found)
