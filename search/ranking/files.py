"""Files as answers: what a question that asks how a part works wants from a ranked list.

"How does the worker take messages off the broker?" is answered by the files one should read,
usually two or three, not by one file's methods. A unit-by-unit score lists a file's second and
third units before the next file; here, for such questions only, the list is spread over files
harder and a file is weighed by how many of its units the search found (its evidence as a
whole). A file's opening lines (the module block with its docstring, which says what the file
is for) are not held back as other module-level code is, for this question and any other
(`search.ranking.structure`).

A name typed as the query, or a precise question ("where does it give up after max retries",
"why is my POST not retried"), keeps its best unit first: the query's shape decides, since
its kind is not given. On the developer questions' tuning part, 95 of the 100 questions so
shaped are architecture ones (95 of its 145 architecture questions are so shaped, none of its
symbol ones); the strengths were chosen there (docs/BENCHMARKS.md, docs/eval/files-to-read*).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

# "how to" and "how do I" ask for a thing to do, "how long/many/much/often" for a number that
# one unit holds: neither asks for files.
_BROAD = re.compile(r"^(?:how\b(?!\s+(?:to|do\s+i|can\s+i|long|many|much|often)\b)|which\b|what\b)")
# What a precise question asks: a place ("where"), a reason, a moment, a consequence ("what
# happens to a task that ..."), a decision ("how does it decide which queue").
_PRECISE = re.compile(r"\b(?:where|why|when|what\s+happens|decides?)\b")


class FileUnit(Protocol):
    path: str
    kind: str
    docstring: str


def asks_for_files(query: str, *, is_name: bool) -> bool:
    """The query asks how something works or what handles it: a sentence that starts with
    "how", "which" or "what" and asks for no place, reason, moment, consequence or decision."""
    if is_name:
        return False
    text = query.strip().lower()
    return _BROAD.match(text) is not None and _PRECISE.search(text) is None


def is_opening(unit: FileUnit) -> bool:
    """A module block that holds the file's docstring: the file's opening lines."""
    return unit.kind == "module" and bool(unit.docstring)


def file_evidence(units: Sequence[FileUnit], *, window: int, strength: float) -> dict[str, float]:
    """What each file's share of the first `window` candidates adds to its units: `strength`
    per doubling of its units there beyond the first (a file found once adds nothing)."""
    if not strength:
        return {}
    counts = Counter(unit.path for unit in units[:window])
    return {path: strength * math.log2(n) for path, n in counts.items() if n > 1}


def lexical_file_evidence(
    paths: Sequence[str], mass: Mapping[str, float], *, strength: float
) -> dict[str, float]:
    """What a file's BM25 scores over all its units, added up (`mass`, for the candidates'
    files), add to its units: `strength` per standard deviation its log stands above the
    candidate files' mean; a file below the mean gets nothing. A central file with many units
    on the topic gathers mass though none of its units is the best match."""
    if not strength or not mass:
        return {}
    files = list(dict.fromkeys(paths))
    values = np.log1p([mass.get(path, 0.0) for path in files])
    spread = float(values.std())
    if not spread:
        return {}
    above = (values - values.mean()) / spread
    return {path: strength * float(z) for path, z in zip(files, above, strict=True) if z > 0}
