"""Sending the base weights and the pairs to a GPU machine, and back to what training loads."""

import json

import numpy as np

from benchmarks.embedder_remote import WORDS, pack, unpack, used_word_pieces
from benchmarks.train_embedder import base_model_dir
from indexing.embedder_delta import read_safetensors


def test_the_packed_base_unpacks_to_the_rows_training_can_look_up(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {"query": "retry a failed call", "code": "def retry(f):\n    return f()", "negative": ""},
        {"query": "parse a date", "code": "def parse(s): ...", "negative": "def fmt(d): ..."},
    ]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = pack([pairs], tmp_path / "packed")
    base = read_safetensors(base_model_dir() / "model.safetensors")
    assert report["of"] == base[WORDS].shape[0] and 0 < report["word_pieces_sent"] < 100
    assert report["bytes"] < 30_000_000  # the whole base is 91 MB

    unpack(tmp_path / "packed", tmp_path / "base")
    assert (tmp_path / "base" / "pairs.jsonl").read_bytes() == pairs.read_bytes()
    assert (tmp_path / "base" / "config.json").exists()
    got = read_safetensors(tmp_path / "base" / "model.safetensors")
    assert set(got) == set(base)
    used = used_word_pieces([pairs], base_model_dir() / "tokenizer.json")
    np.testing.assert_array_equal(got[WORDS][used], base[WORDS][used].astype(np.float16))
    unused = np.setdiff1d(np.arange(base[WORDS].shape[0]), used)
    assert not got[WORDS][unused].any()
    for name in set(base) - {WORDS}:
        assert got[name].shape == base[name].shape
        np.testing.assert_allclose(got[name], base[name], rtol=1e-3, atol=1e-4)


def test_train_runs_where_celery_is_missing():
    import subprocess
    import sys
    from pathlib import Path

    # The GPU machine has torch but not the product's requirements: `reporift/__init__` (which
    # imports Celery) must not stop the training's own imports.
    code = (
        "import sys; sys.modules['celery'] = None; sys.argv = ['x', 'train', '--help']\n"
        "from benchmarks.embedder_remote import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "--base-dir" in done.stdout
