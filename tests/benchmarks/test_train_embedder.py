import pytest

from benchmarks.train_embedder import batches, repeated


def _pairs():
    return [
        {"query": "q1", "code": "a", "negative": "", "source": "cosqa:train"},
        {"query": "q2", "code": "b", "negative": "", "source": "package:yaml"},
    ]


def test_repeat_draws_a_source_more_often_and_leaves_the_others_once():
    pairs = repeated(_pairs(), "cosqa=3")
    assert [p["query"] for p in pairs] == ["q1", "q1", "q1", "q2"]
    assert repeated(_pairs(), "") == _pairs()
    assert [p["query"] for p in repeated(_pairs(), "cosqa=0,package=2")] == ["q2", "q2"]


def test_a_malformed_repeat_is_refused_with_its_shape():
    with pytest.raises(SystemExit, match="NAME=COUNT"):
        repeated(_pairs(), "cosqa")


def test_batches_are_seeded_and_cover_every_pair_before_repeating_one():
    pairs = [{"query": str(i)} for i in range(10)]
    first = [[p["query"] for p in b] for b in batches(pairs, batch=5, steps=2, seed=1)]
    again = [[p["query"] for p in b] for b in batches(pairs, batch=5, steps=2, seed=1)]
    assert first == again
    assert sorted(first[0] + first[1]) == sorted(str(i) for i in range(10))
