"""A bm25s index built from a stream of documents in bounded memory.

Written here on purpose rather than calling `bm25s.BM25.index`, which keeps every document's
whole token list in memory and then builds the score matrix through three flat arrays and a
sparse-matrix conversion. That build comes at the very end of an index run, on top of
everything the process holds; on the 210,000-unit tree (29 million tokens) it added 343 MiB
at its peak. Here documents are reduced to their distinct tokens and counts as they stream in,
a block of 4,096 at a time (8 bytes per distinct (document, token) pair, a quarter of the
tokens, once a block is counted), the scores are
computed by blocks, and scipy turns the documents-by-tokens matrix into the token-major one
bm25s searches in one counting pass: 248 MiB at the peak on the same tree, and 64 MiB less
kept afterwards. The scoring formulas and parameters are bm25s's own (its `method`, `k1`, `b`,
idf variant); the result is a `bm25s.BM25` that scores, saves and loads as if it had indexed
the corpus itself (tests/indexing/test_bm25_build.py compares the scores with `index()`).
"""

from __future__ import annotations

from collections.abc import Iterable

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

_BLOCK = 4096  # documents gathered before their postings are joined into one array


class _Vocabulary(dict):
    """Token -> id; a token looked up for the first time takes the next id (the order in which
    `index()` numbers them), so that a document's ids are one C-level `map` away."""

    def __missing__(self, token: str) -> int:
        self[token] = value = len(self)
        return value


class _Postings:
    """Distinct token ids and their counts, document after document, kept as a few large
    arrays rather than one small array per document (whose headers alone would cost 100
    bytes each). Each block of documents is counted at once: one `np.unique` over (document,
    token) keys instead of one per document."""

    def __init__(self) -> None:
        self.terms: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.distinct: list[int] = []  # per document
        self.lengths: list[int] = []  # tokens per document
        self._pending: list[np.ndarray] = []

    def add(self, token_ids: np.ndarray) -> None:
        self._pending.append(token_ids)
        self.lengths.append(len(token_ids))
        if len(self._pending) >= _BLOCK:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        documents = len(self._pending)
        sizes = np.fromiter(map(len, self._pending), dtype=np.int64, count=documents)
        ids = np.concatenate(self._pending).astype(np.int64)
        owner = np.repeat(np.arange(documents, dtype=np.int64), sizes)
        # Sorted by document, then token: each document's distinct tokens in order, as
        # `np.unique` of the document alone gives them.
        keys, counts = np.unique((owner << 32) | ids, return_counts=True)
        self.terms.append((keys & 0xFFFFFFFF).astype(np.int32))
        self.counts.append(counts.astype(np.int32))
        self.distinct += np.bincount(keys >> 32, minlength=documents).tolist()
        self._pending = []

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        self._flush()
        empty = np.zeros(0, dtype=np.int32)
        terms = np.concatenate(self.terms) if self.terms else empty
        self.terms = []
        counts = np.concatenate(self.counts) if self.counts else empty
        self.counts = []
        return terms, counts


def build_bm25(corpus: Iterable[list[str]]) -> bm25s.BM25:
    """The index over `corpus` (one token list per document, read once). A corpus without a
    single token gives an index with an empty vocabulary."""
    retriever = bm25s.BM25()
    vocab = _Vocabulary()
    postings = _Postings()
    lookup = vocab.__getitem__
    for tokens in corpus:
        postings.add(np.fromiter(map(lookup, tokens), dtype=np.int32, count=len(tokens)))
    vocab = dict(vocab)  # a plain dict from here: a query's unknown token must not enter it
    if vocab:
        # As `index()` does: an empty token, whose column stays empty, so no query id is out
        # of range.
        vocab.setdefault("", len(vocab))
        retriever.scores = _score_matrix(retriever, postings, len(vocab))
    retriever.vocab_dict = vocab
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    return retriever


def _score_matrix(retriever: bm25s.BM25, postings: _Postings, n_vocab: int) -> dict:
    if retriever.method in retriever.methods_requiring_nonoccurrence:
        raise ValueError(f"bm25 method {retriever.method!r} is not supported by build_bm25")
    terms, counts = postings.arrays()  # first: it counts the last block's distinct tokens
    lengths = np.asarray(postings.lengths, dtype=np.float64)
    n_docs = len(lengths)
    rows = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.asarray(postings.distinct, dtype=np.int64), out=rows[1:])
    postings.lengths = postings.distinct = []
    idf_of = _select_idf_scorer(retriever.idf_method)
    idf = np.array(
        [idf_of(int(df), N=n_docs) if df else 0.0 for df in np.bincount(terms, minlength=n_vocab)],
        dtype=retriever.dtype,
    )
    tfc_of = _select_tfc_scorer(retriever.method)
    average = lengths.mean()
    scores = np.empty(len(terms), dtype=retriever.dtype)
    # By blocks of documents: the float64 temporaries of the formula stay small.
    for first in range(0, n_docs, _BLOCK):
        last = min(first + _BLOCK, n_docs)
        lo, hi = rows[first], rows[last]
        tfc = tfc_of(
            tf_array=counts[lo:hi].astype(retriever.dtype),
            l_d=np.repeat(lengths[first:last], np.diff(rows[first : last + 1])),
            l_avg=average,
            k1=retriever.k1,
            b=retriever.b,
            delta=retriever.delta,
        )
        scores[lo:hi] = idf[terms[lo:hi]] * tfc
    del counts
    # The postings are already a documents x tokens CSR matrix (each document's tokens sorted
    # by np.unique); scipy transposes it to the token-major layout bm25s searches with one
    # counting pass, keeping each token's documents in order, and no sort index.
    by_token = sp.csr_matrix((scores, terms, rows), shape=(n_docs, n_vocab)).tocsc()
    return {
        "data": by_token.data.astype(retriever.dtype, copy=False),
        "indices": by_token.indices.astype(retriever.int_dtype, copy=False),
        "indptr": by_token.indptr,
        "num_docs": n_docs,
    }
