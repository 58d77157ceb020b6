"""The static tier: a table distilled from the serving transformer, checked by hash."""

from __future__ import annotations

import contextlib

import numpy as np

import reporift.model_files
from indexing.embedding import get_embedder
from indexing.static_tier import get_static_embedder, load_or_build, static_model_id, table_file


def test_the_table_follows_the_transformer(settings):
    static = get_static_embedder()
    transformer = get_embedder()
    assert static.model_id == static_model_id(transformer.model_id)
    table = np.load(table_file(settings.DATA_DIR / "models", static.model_id))
    assert table.shape == (30522, 256)
    assert not table[0].any()  # [PAD], like every special and unused token, looks up nothing


def test_static_vectors_rank_like_meaning():
    static = get_static_embedder()
    queries = static.embed(["retry a failed http request", "parse a json configuration file"])
    code = static.embed(
        [
            "def send_with_retries(request, attempts=3):\n    for _ in range(attempts): ...",
            "def load_config(path):\n    return json.load(open(path))",
        ]
    )
    assert np.allclose(np.linalg.norm(code, axis=1), 1.0, atol=1e-5)
    similarity = queries @ code.T
    assert similarity[0, 0] > similarity[0, 1] and similarity[1, 1] > similarity[1, 0]
    assert not static.embed([""]).any()  # an empty text has no direction


class TinySource:
    """A stand-in transformer for the table's build and check alone (the real one has its own
    test above): each token's state is a fixed function of its id, computed in microseconds."""

    model_id = table_source_id = "tiny-source"
    distil_recipe: dict = {}

    def __init__(self, tokenizer_file):
        self.tokenizer_file = tokenizer_file
        self.calls = 0

    def distilling(self):
        return contextlib.nullcontext()

    def mean_states(self, ids):
        self.calls += 1
        return np.stack([np.random.default_rng(int(i)).standard_normal(300) for i in ids[:, 1]])


def test_an_altered_table_is_never_served(tmp_path):
    source = TinySource(get_embedder().tokenizer_file)
    built = load_or_build(source, tmp_path)
    table = table_file(tmp_path, built.model_id)
    original = np.load(table)
    assert original.shape == (30522, 256)
    calls = source.calls
    altered = original.copy()
    altered[1000, 0] += 0.5
    np.save(table, altered)
    reporift.model_files._verified.clear()  # as in a new process
    again = load_or_build(source, tmp_path)
    assert source.calls > calls  # detected by its recorded sha256 and distilled again
    assert np.array_equal(again._table, original)
