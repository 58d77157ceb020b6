"""The static tier: a table distilled from the serving transformer, checked by hash."""

from __future__ import annotations

import numpy as np
import pytest

from indexing.embedding import get_embedder
from indexing.static_tier import (
    StaticTableRefused,
    get_static_embedder,
    load_or_build,
    static_model_id,
    table_paths,
)


def test_the_table_follows_the_transformer(settings):
    static = get_static_embedder()
    transformer = get_embedder()
    assert static.model_id == static_model_id(transformer.model_id)
    table_file, manifest_file = table_paths(settings.DATA_DIR / "models", static.model_id)
    assert table_file.is_file() and manifest_file.is_file()
    table = np.load(table_file)
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


def test_an_altered_table_is_refused(settings, tmp_path):
    source = get_embedder()
    models_dir = tmp_path / "models"
    models_dir.mkdir()
    model_id = static_model_id(source.model_id)
    table_file, manifest_file = table_paths(settings.DATA_DIR / "models", model_id)
    # A copy of the built table and its manifest, then one value changed.
    (models_dir / table_file.name).write_bytes(table_file.read_bytes())
    (models_dir / manifest_file.name).write_text(manifest_file.read_text())
    assert load_or_build(source, models_dir).model_id == model_id
    altered = np.load(models_dir / table_file.name)
    altered[1000, 0] += 0.5
    np.save(models_dir / table_file.name, altered)
    with pytest.raises(StaticTableRefused, match="altered"):
        load_or_build(source, models_dir)


def test_a_refused_table_turns_the_tier_off(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    source = get_embedder()
    table_file, manifest_file = table_paths(tmp_path / "models", static_model_id(source.model_id))
    table_file.parent.mkdir()
    table_file.write_bytes(b"not a table")
    manifest_file.write_text('{"sha256": "0"}')
    get_static_embedder.cache_clear()
    try:
        assert get_static_embedder() is None  # indexing then runs in one phase
    finally:
        get_static_embedder.cache_clear()
