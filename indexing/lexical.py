"""The lexical (BM25) index of a generation, built with bm25s.

Code is tokenised into words the way a person reads it: `parseConfigFile` and `parse_config_file`
both become `parse config file`, so a plain-language query meets identifiers. One index per
generation, built on first use (or right after an index run), kept in memory for the few most
recent generations and saved beside the data so that a restarted process loads instead of
rebuilding.
"""

from __future__ import annotations

import logging
import re
import shutil
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Generic, Protocol, TypeVar

import bm25s
import numpy as np
from django.conf import settings

from indexing.bm25_build import build_bm25
from indexing.unit_text import identifier_words, path_text

logger = logging.getLogger(__name__)
T = TypeVar("T")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# Words that carry no meaning in either a question or code.
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "we",
        "do",
        "does",
        "our",
        "my",
        "you",
        "your",
        "can",
        "self",
        "cls",
        "none",
        "true",
        "false",
        "return",
        "def",
        "class",
        "import",
        "pass",
    }
)


# Each language's syntax words, which every unit of the language repeats: they say nothing of
# what one unit does, and a question's "function" or "end" must not match all of a language's
# code. Python's few are in STOPWORDS (asked of questions too) from the start; these are left
# out of code only, so that Python's tokens stay the ones the ranker was fitted on. Words a
# question means as words ("type", "new", "match", "map") stay in, and so do the languages'
# empty values (`nil`, `null`, `undefined`): questions name them ("an undefined value").
_C_FAMILY = {"const", "static", "void", "int", "char", "unsigned", "sizeof"}
_JVM = {"public", "private", "protected", "static", "final", "void", "this", "extends"}
_JVM |= {"implements", "override", "val", "var", "fun", "def", "lazy", "sealed", "throws"}
_JS = {"function", "const", "let", "var", "this", "export", "async"}
_JS |= {"await", "typeof", "instanceof"}
CODE_KEYWORDS: dict[str, frozenset[str]] = {
    language: frozenset(words)
    for language, words in {
        "javascript": _JS,
        "typescript": _JS | {"readonly", "implements", "private", "public"},
        "tsx": _JS | {"readonly", "implements", "private", "public"},
        "go": {"func", "var", "const", "err", "package", "defer", "chan"},
        "java": _JVM,
        "kotlin": _JVM,
        "scala": _JVM,
        "csharp": _JVM | {"var", "readonly", "internal", "namespace", "using"},
        "php": {"function", "public", "private", "protected", "static", "this", "echo"},
        "ruby": {"def", "end", "elsif", "unless", "attr", "accessor", "reader", "yield"},
        "rust": {"fn", "pub", "let", "mut", "impl", "crate", "mod", "use", "ref", "dyn"},
        "swift": {"func", "var", "let", "guard", "public", "private", "static", "inout"},
        "c": _C_FAMILY,
        "cpp": _C_FAMILY | {"auto", "template", "typename", "namespace", "std"},
        "elixir": {"def", "defp", "defmodule", "end", "fn", "do"},
        "haskell": {"where", "let", "module", "data", "instance", "deriving"},
        "lua": {"function", "local", "end", "then", "elseif"},
        "bash": {"fi", "then", "esac", "done", "elif", "local", "echo"},
        "powershell": {"function", "param", "foreach", "elseif"},
        "zig": {"fn", "pub", "const", "var", "comptime", "usize", "void"},
    }.items()
}


def tokenize(text: str) -> list[str]:
    return list(chain.from_iterable(map(_index_words, _WORD.findall(text))))


def code_tokens(code: str, language: str = "python") -> list[str]:
    """`tokenize` without the language's syntax words (`CODE_KEYWORDS`)."""
    tokens = tokenize(code)
    keywords = CODE_KEYWORDS.get(language)
    return [t for t in tokens if t not in keywords] if keywords else tokens


@lru_cache(maxsize=65536)
def _index_words(word: str) -> tuple[str, ...]:
    # Source code repeats a few thousand identifiers; splitting each once instead of at every
    # occurrence makes tokenising (indexing, and the ranker's features at search time) about
    # three times faster.
    return tuple(w for w in identifier_words(word) if len(w) > 1 and w not in STOPWORDS)


def unit_tokens(
    path: str, qualname: str, docstring: str, code: str, language: str = "python"
) -> list[str]:
    # The name counts twice: it is the densest summary of what a unit does.
    name = tokenize(qualname)
    return (
        name + name + tokenize(path_text(path)) + tokenize(docstring) + code_tokens(code, language)
    )


@dataclass
class LexicalIndex:
    unit_ids: np.ndarray  # the caller's ids (CodeUnit primary keys), in index order
    retriever: bm25s.BM25
    indexed: bool = True  # False when no document had a single token

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every item for `query`, in index order (zeros when nothing can
        match)."""
        tokens = tokenize(query)
        if not tokens or not self.indexed or len(self.unit_ids) == 0:
            return np.zeros(len(self.unit_ids), dtype=np.float32)
        return self.retriever.get_scores(tokens)

    @property
    def positions(self) -> dict[int, int]:
        """Each id's place in index order."""
        if not hasattr(self, "_positions"):
            self._positions = {int(u): i for i, u in enumerate(self.unit_ids)}
        return self._positions

    def scores_of(self, scores: np.ndarray, unit_ids: Sequence[int]) -> dict[int, float]:
        """Pick the given ids' entries out of `scores()` (ids not in the index are left out)."""
        positions = self.positions
        return {u: float(scores[positions[u]]) for u in unit_ids if u in positions}

    def holds(self, unit_ids: Iterable[int]) -> set[int]:
        """Which of `unit_ids` the index holds. A generation's index holds every unit of the
        generation, so this says which ids (a vector store's hits, say) are of it."""
        positions = self.positions
        return {u for u in unit_ids if u in positions}

    def search(
        self,
        query: str,
        *,
        n: int,
        mask: np.ndarray | None = None,
        scores: np.ndarray | None = None,
    ) -> list[tuple[int, float]]:
        """Top `n` (id, BM25 score) with a positive score; `mask` (0/1 per item) filters;
        `scores` reuses a `scores(query)` already computed."""
        scores = self.scores(query) if scores is None else scores
        if mask is not None:
            scores = scores * mask
        n = min(n, len(scores))
        if n == 0:
            return []
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.unit_ids[i]), float(scores[i])) for i in top if scores[i] > 0]


def bm25_index(ids: Sequence[int], corpus: Iterable[list[str]]) -> LexicalIndex:
    """An index over `corpus` (one token list per id), read once as it streams in, in bounded
    memory (`indexing.bm25_build`)."""
    retriever = build_bm25(corpus)
    return LexicalIndex(np.array(ids, dtype=np.int64), retriever, bool(retriever.vocab_dict))


class Generation(Protocol):
    pk: int
    created_at: datetime


def generation_key(run: Generation) -> str:
    """A run id alone can come back (a database reset beside a surviving data dir); with its
    creation time it names one generation for good."""
    return f"{run.pk}-{int(run.created_at.timestamp() * 1_000_000)}"


class GenerationCache(Generic[T]):
    """Objects built per generation (an index), the few most recently used kept in memory.

    Building one (seconds, for a large repository) holds only that generation's lock: searches
    of every other repository go on meanwhile."""

    # Every cache made, so that a server can size them all to the repositories it serves.
    made: list[GenerationCache] = []
    # What `hold` asked for: a cache made later (its module first imported by the warm-up's own
    # searches, after `hold`, as the name index's is) is held as large. At the default size a
    # search over 20 repositories built their name indexes again each time (p95 7.4 s).
    held: int = 0

    def __init__(self, size: int = 8) -> None:
        self.size = max(size, GenerationCache.held)
        self._items: OrderedDict[str, T] = OrderedDict()
        self._building: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        GenerationCache.made.append(self)

    @classmethod
    def hold(cls, generations: int) -> None:
        """Let every cache keep at least `generations` generations. A search over all of a
        server's repositories asks each one's index in turn: with fewer kept than there are
        repositories, every such search read most of them from disk again (over 20 repositories,
        1.3 s at the median and 16.5 s at p95, docs/BENCHMARKS.md)."""
        cls.held = max(cls.held, generations)
        for cache in cls.made:
            with cache._lock:
                cache.size = max(cache.size, generations)

    def _cached(self, key: str) -> T | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            return None

    def get(self, run: Generation, build: Callable[[str], T]) -> T:
        key = generation_key(run)
        if (item := self._cached(key)) is not None:
            return item
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:
            if (item := self._cached(key)) is not None:
                return item  # built by the thread we waited for
            item = build(key)
            with self._lock:
                self._items[key] = item
                self._building.pop(key, None)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return item

    def drop(self, run: Generation) -> str:
        key = generation_key(run)
        with self._lock:
            self._items.pop(key, None)
        return key


_indexes: GenerationCache[LexicalIndex] = GenerationCache()


# Names how units become tokens; bump it when `unit_tokens` changes, so that an index saved with
# the old tokens is rebuilt instead of loaded (a query tokenised anew meets the old words).
# 2: each language's syntax words left out of its code, paths without their extension.
# 3: the empty values (`nil`, `null`, `undefined`) kept.
# 4: PowerShell's syntax words are only `function`, `param`, `foreach`, `elseif`.
TOKENS_VERSION = 4


def _directory(key: str, version: int = TOKENS_VERSION) -> Path:
    suffix = f"-t{version}" if version > 1 else ""
    return Path(settings.DATA_DIR) / "lexical" / f"run-{key}{suffix}"


def lexical_index_for_run(run: Generation) -> LexicalIndex:
    return _indexes.get(run, lambda key: _load(key) or _build(run.pk, key))


def _load(key: str) -> LexicalIndex | None:
    directory = _directory(key)
    ids_file = directory / "unit_ids.npy"
    if not ids_file.exists():
        return None
    try:
        return LexicalIndex(np.load(ids_file), bm25s.BM25.load(str(directory)))
    except Exception:  # a half-written or old-format index: rebuild it
        logger.warning("could not load lexical index %s; rebuilding", key)
        return None


def _build(run_id: int, key: str) -> LexicalIndex:
    from indexing.models import CodeUnit

    rows = (
        CodeUnit.objects.filter(file_version__runs=run_id)
        .order_by("pk")
        .values_list("pk", "path", "qualname", "docstring", "code", "language")
    )
    ids: list[int] = []

    def corpus() -> Iterator[list[str]]:
        for pk, path, qualname, docstring, code, language in rows.iterator(chunk_size=2000):
            ids.append(pk)
            yield unit_tokens(path, qualname, docstring, code, language)

    index = bm25_index(ids, corpus())  # `ids` fills as the corpus streams in
    if index.indexed:
        _save(key, index)
    return index


def _save(key: str, index: LexicalIndex) -> None:
    directory = _directory(key)
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    index.retriever.save(str(partial))
    np.save(partial / "unit_ids.npy", index.unit_ids)
    shutil.rmtree(directory, ignore_errors=True)
    partial.rename(directory)  # readers see a whole index or none


def drop_lexical_index(run: Generation) -> None:
    key = _indexes.drop(run)
    for version in range(1, TOKENS_VERSION + 1):  # and those saved by earlier versions
        shutil.rmtree(_directory(key, version), ignore_errors=True)
