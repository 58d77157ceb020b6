from benchmarks.train_embedder import batches


def test_batches_are_seeded_and_cover_every_pair_before_repeating_one():
    pairs = [{"query": str(i)} for i in range(10)]
    first = [[p["query"] for p in b] for b in batches(pairs, batch=5, steps=2, seed=1)]
    again = [[p["query"] for p in b] for b in batches(pairs, batch=5, steps=2, seed=1)]
    assert first == again
    assert sorted(first[0] + first[1]) == sorted(str(i) for i in range(10))
