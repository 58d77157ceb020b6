"""The ranker's words of every unit a process knows, kept in a compact form past the row cache.

A process keeps the rows and words of CACHED_UNITS units as objects (indexing.unit_cache,
search.ranking.features), about 10 KB a unit. A search over more units than that (several large
repositories at once, one of over 60,000 units) meets candidates whose rows it has let go, and
split each one's code into stemmed words again, a fifth of a millisecond a unit: 14 ms of a 33
ms search over seven large repositories (docs/BENCHMARKS.md, "All repositories at once"). Here a
unit's words are kept as word numbers in one bytes object (about 250 bytes a unit, where the
word sets take 6 KB), and turned back into word sets several times faster than splitting.

Keyed by the unit's id, as a generation's saved words are (search.ranking.word_packs); each
entry also holds the unit's first line and code length, so that a database reset beside a
living process, which can hand an id out again, is not answered with another unit's words.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UnitWords:
    """What the features need of a unit whatever the query: its stemmed word sets and facts."""

    name: frozenset[str]
    qualname: frozenset[str]
    class_name: frozenset[str]
    path: frozenset[str]
    signature: frozenset[str]
    code: frozenset[str]  # without the docstring (the module docstring says why)
    text: frozenset[str]  # the code as written, docstring included (the reasons' words)
    context: frozenset[str]
    name_words: int
    body_lines: int
    is_private: bool  # internal by the language's convention (`_helper`, Go's `helper`, `static`)
    is_special: bool  # a name the language calls itself (`__init__`, `constructor`, `__get`)
    is_property: bool
    is_overload: bool


# The word sets of UnitWords in the order they are packed. `text` is packed as what it holds
# beyond `code` (the docstring's words): most of it is the code's.
_SETS = ("name", "qualname", "class_name", "path", "signature", "code", "context")
_FLAGS = ("is_private", "is_special", "is_property", "is_overload")
# Numbers before the words: the guard (first line, code length), one length per set and the
# text's extra words, then the facts.
_GUARD = 2
_LENGTHS = len(_SETS) + 1
_HEAD = _GUARD + _LENGTHS + 3


class WordMemo:
    """Units' words by id, packed; at most `limit` units, the oldest let go first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._numbers: dict[str, int] = {}
        self._words: list[str] = []
        self._packed: dict[int, bytes] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._packed)

    def __contains__(self, pk: int) -> bool:
        return pk in self._packed

    def holds(self, pk: int, *, start_line: int, code_length: int) -> bool:
        packed = self._packed.get(pk)
        if packed is None:
            return False
        guard = array("I")
        guard.frombytes(packed[: 4 * _GUARD])
        return guard[0] == start_line and guard[1] == code_length

    def get(self, pk: int, *, start_line: int, code_length: int) -> UnitWords | None:
        packed = self._packed.get(pk)
        if packed is None:
            return None
        numbers = array("I")
        numbers.frombytes(packed)
        if numbers[0] != start_line or numbers[1] != code_length:
            return None  # the id names another unit now
        return self._unpack(numbers)

    def put(self, pk: int, words: UnitWords, *, start_line: int, code_length: int) -> None:
        if self.limit <= 0:
            return
        with self._lock:
            self._packed[pk] = self._pack(words, start_line, code_length)
            self._trim()

    def size_bytes(self) -> int:
        """What the packed units hold (not counting the dict's own entries and the words)."""
        return sum(len(packed) for packed in self._packed.values())

    def saved(self, pks: Iterable[int]) -> tuple[list[str], dict[int, bytes]]:
        """What a pack saves of these units: each one held, numbered by the words they use
        (those alone, so that a pack does not carry the words of every other repository)."""
        held = {pk: np.frombuffer(p, np.uint32) for pk in pks if (p := self._packed.get(pk))}
        if not held:
            return [], {}
        used = np.unique(np.concatenate([numbers[_HEAD:] for numbers in held.values()]))
        renumber = np.zeros(len(self._words), np.uint32)
        renumber[used] = np.arange(len(used), dtype=np.uint32)
        packed = {}
        for pk, numbers in held.items():
            local = numbers.copy()
            local[_HEAD:] = renumber[numbers[_HEAD:]]
            packed[pk] = local.tobytes()
        return [self._words[n] for n in used.tolist()], packed

    def adopt(self, words: list[str], packed: dict[int, bytes]) -> int:
        """Units saved by another process (`saved`), numbered by its words: renumbered by this
        memo's, all of them in one pass. How many were taken."""
        if self.limit <= 0 or not packed:
            return 0
        with self._lock:
            renumber = np.fromiter((self._number(w) for w in words), np.uint32, len(words))
            for pk, entry in packed.items():
                numbers = np.frombuffer(entry, np.uint32).copy()
                numbers[_HEAD:] = renumber[numbers[_HEAD:]]
                self._packed[pk] = numbers.tobytes()
            self._trim()
        return len(packed)

    def _trim(self) -> None:
        while len(self._packed) > self.limit:
            del self._packed[next(iter(self._packed))]

    def _number(self, word: str) -> int:
        number = self._numbers.get(word)
        if number is None:
            number = self._numbers[word] = len(self._words)
            self._words.append(word)
        return number

    def _pack(self, words: UnitWords, start_line: int, code_length: int) -> bytes:
        sets = [getattr(words, name) for name in _SETS]
        extra = words.text - words.code
        flags = sum(1 << bit for bit, name in enumerate(_FLAGS) if getattr(words, name))
        numbers = array("I", (start_line, code_length, *(len(s) for s in sets), len(extra)))
        numbers.extend((words.name_words, words.body_lines, flags))
        for group in (*sets, extra):
            numbers.extend(self._number(word) for word in group)
        return numbers.tobytes()

    def _unpack(self, numbers: array) -> UnitWords:
        words = self._words
        at, sets = _HEAD, []
        for length in numbers[_GUARD : _GUARD + _LENGTHS]:
            sets.append(frozenset(map(words.__getitem__, numbers[at : at + length])))
            at += length
        *fields, extra = sets
        by_name = dict(zip(_SETS, fields, strict=True))
        name_words, body_lines, flags = numbers[_GUARD + _LENGTHS : _HEAD]
        return UnitWords(
            **by_name,
            text=by_name["code"] | extra,
            name_words=name_words,
            body_lines=body_lines,
            **{name: bool(flags >> bit & 1) for bit, name in enumerate(_FLAGS)},
        )
