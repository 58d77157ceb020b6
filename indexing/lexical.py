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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import bm25s
import numpy as np
from django.conf import settings

from indexing.unit_text import identifier_words

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


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        for word in identifier_words(match.group()):
            if len(word) > 1 and word not in STOPWORDS:
                tokens.append(word)
    return tokens


def unit_tokens(path: str, qualname: str, docstring: str, code: str) -> list[str]:
    # The name counts twice: it is the densest summary of what a unit does.
    name = tokenize(qualname)
    return name + name + tokenize(path.removesuffix(".py")) + tokenize(docstring) + tokenize(code)


@dataclass
class LexicalIndex:
    unit_ids: np.ndarray  # the caller's ids (CodeUnit primary keys), in index order
    retriever: bm25s.BM25
    indexed: bool = True  # False when no document had a single token

    def search(
        self, query: str, *, n: int, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Top `n` (id, BM25 score) with a positive score; `mask` (0/1 per item) filters."""
        tokens = tokenize(query)
        if not tokens or not self.indexed or len(self.unit_ids) == 0:
            return []
        scores = self.retriever.get_scores(tokens)
        if mask is not None:
            scores = scores * mask
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.unit_ids[i]), float(scores[i])) for i in top if scores[i] > 0]


def bm25_index(ids: Sequence[int], corpus: list[list[str]]) -> LexicalIndex:
    retriever = bm25s.BM25()
    indexed = any(corpus)
    if indexed:
        retriever.index(corpus, show_progress=False)
    return LexicalIndex(np.array(ids, dtype=np.int64), retriever, indexed)


def generation_key(run_id: int) -> str:
    """A run id alone can come back (a database reset beside a surviving data dir); with its
    creation time it names one generation for good."""
    from indexing.models import IndexRun

    created = IndexRun.objects.values_list("created_at", flat=True).get(pk=run_id)
    return f"{run_id}-{int(created.timestamp() * 1_000_000)}"


class GenerationCache(Generic[T]):
    """Objects built per generation (an index), the few most recently used kept in memory."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run_id: int, build: Callable[[str], T]) -> T:
        key = generation_key(run_id)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            item = self._items[key] = build(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
            return item

    def drop(self, run_id: int) -> str:
        key = generation_key(run_id)
        with self._lock:
            self._items.pop(key, None)
        return key


_indexes: GenerationCache[LexicalIndex] = GenerationCache()


def _directory(key: str) -> Path:
    return Path(settings.DATA_DIR) / "lexical" / f"run-{key}"


def lexical_index_for_run(run_id: int) -> LexicalIndex:
    return _indexes.get(run_id, lambda key: _load(key) or _build(run_id, key))


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
        .values_list("pk", "path", "qualname", "docstring", "code")
    )
    ids: list[int] = []
    corpus: list[list[str]] = []
    for pk, path, qualname, docstring, code in rows.iterator(chunk_size=2000):
        ids.append(pk)
        corpus.append(unit_tokens(path, qualname, docstring, code))
    index = bm25_index(ids, corpus)
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


def drop_lexical_index(run_id: int) -> None:
    shutil.rmtree(_directory(_indexes.drop(run_id)), ignore_errors=True)
