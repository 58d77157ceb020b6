"""The part of a result's code that answers the query: its signature line and a window of at most
`WINDOW` lines, chosen without any model.

Each line scores by the query's words it contains, as words or as parts of identifiers
(`max_retries` has `retri`), stemmed as the ranker stems them; words that open many lines of the
unit count less (`self`, `return`). The window is the run of lines with the highest score; for
a class that is usually inside its best-matching method. A unit with no matching line shows its
first lines. Pure and cheap: a few hundred microseconds for a long class.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from indexing.lexical import tokenize
from indexing.unit_text import identifier_words
from search.ranking.features import _stemmer, stems

WINDOW = 12
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF = re.compile(r"^\s*(async\s+def|def|class)\s")


@dataclass(frozen=True)
class Excerpt:
    signature_line: int  # file line of the `def`/`class` line
    start_line: int  # the window, file lines, inclusive
    end_line: int
    text: str  # the window's lines
    signature: str  # the signature line's text ("" when it is inside the window)
    matched: tuple[str, ...]  # query words the window contains

    def as_dict(self) -> dict:
        return {
            "signature_line": self.signature_line,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "text": self.text,
            "signature": self.signature,
            "matched": list(self.matched),
        }


@lru_cache(maxsize=4096)
def _line_words(code: str) -> tuple[frozenset[str], ...]:
    """Each line's stemmed words and identifier parts; each distinct word split and stemmed
    once. Kept per code text: a page shows ten results, and the same units come back across
    queries (on the API under load this was most of a request's time)."""
    lines = source_lines(code)
    parts: dict[str, frozenset[str]] = {}
    raw = []
    for line in lines:
        words: set[str] = set()
        for token in _WORD.findall(line):
            if token not in parts:
                parts[token] = frozenset([token.lower(), *identifier_words(token)])
            words |= parts[token]
        raw.append(words)
    vocabulary = sorted(set().union(*raw)) if raw else []
    stemmed = dict(zip(vocabulary, _stemmer().stemWords(vocabulary), strict=True))
    return tuple(frozenset(stemmed[w] for w in words) for words in raw)


def source_lines(code: str) -> list[str]:
    """The code's lines as the parser numbers them, so index + start line is the file's line.

    Split at line feeds only, as the parser counts: `str.splitlines` also splits at a form feed
    and other Unicode breaks, which would shift every later line number. A CRLF's CR is dropped.
    """
    lines = [line.removesuffix("\r") for line in code.split("\n")]
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # a final newline ends the last line; it does not open another
    return lines


def excerpt(code: str, start_line: int, query: str, *, window: int = WINDOW) -> Excerpt:
    lines = source_lines(code)
    signature_index = next((i for i, line in enumerate(lines) if _DEF.match(line)), 0)
    query_stems = stems([w for w in tokenize(query)])
    per_line = [words & query_stems for words in _line_words(code)]
    # A query word found on many lines tells them apart less (idf over the unit's lines).
    counts = {w: sum(1 for words in per_line if w in words) for w in query_stems}
    weight = {w: math.log(1 + len(lines) / c) for w, c in counts.items() if c}
    scores = [sum(weight[w] for w in words) for words in per_line]
    first = signature_index + 1 if len(lines) > signature_index + 1 else signature_index
    best_start, best = first, 0.0
    if any(scores):
        running = [0.0, *itertools.accumulate(scores)]
        for start in range(signature_index, len(lines)):
            total = running[min(start + window, len(lines))] - running[start]
            if total > best:
                best_start, best = start, total
    # Matches above the signature only (a decorator, a comment) leave the first lines shown.
    if best > 0:
        # Centre the matching lines: start the window a little before the first match.
        first_match = next(i for i in range(best_start, len(lines)) if scores[i])
        best_start = max(signature_index, min(first_match - 1, len(lines) - window))
    end = min(len(lines), best_start + window)
    matched = sorted(set().union(*per_line[best_start:end])) if end > best_start else []
    inside = best_start <= signature_index < end
    return Excerpt(
        signature_line=start_line + signature_index,
        start_line=start_line + best_start,
        end_line=start_line + end - 1,
        text="\n".join(lines[best_start:end]),
        signature="" if inside else lines[signature_index].strip(),
        matched=tuple(matched),
    )
