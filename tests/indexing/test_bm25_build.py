import random

import bm25s
import numpy as np
import pytest

from indexing.bm25_build import build_bm25


def _corpus(documents: int, seed: int = 7) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(300)]
    # Zipf-like: a few words in most documents, most words in a few, repeats within documents.
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return [rng.choices(words, weights, k=rng.randint(1, 60)) for _ in range(documents)]


@pytest.mark.parametrize("documents", [1, 7, 5000])  # 5000: more than one block of postings
def test_scores_match_bm25s_own_index(documents):
    corpus = _corpus(documents)
    reference = bm25s.BM25()
    reference.index(corpus, show_progress=False)
    built = build_bm25(iter(corpus))
    assert built.scores["num_docs"] == documents
    assert built.vocab_dict.keys() == reference.vocab_dict.keys()
    compared = 0
    for query in (["w0"], ["w1", "w5", "w250"], ["w3", "w3", "w42"], ["w299", "unknown"]):
        known = [t for t in query if t in reference.vocab_dict]
        if not known:
            continue
        mine, theirs = built.get_scores(known), reference.get_scores(known)
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7)
        assert mine.dtype == theirs.dtype
        compared += 1
    assert compared >= 1


def test_round_trip_through_bm25s_save_and_load(tmp_path):
    corpus = _corpus(300)
    built = build_bm25(iter(corpus))
    built.save(str(tmp_path))
    loaded = bm25s.BM25.load(str(tmp_path))
    query = [built.vocab_dict["w2"], built.vocab_dict["w17"]]
    np.testing.assert_array_equal(loaded.get_scores(query), built.get_scores(query))


def test_a_corpus_without_tokens_has_an_empty_vocabulary():
    built = build_bm25(iter([[], []]))
    assert built.vocab_dict == {}
