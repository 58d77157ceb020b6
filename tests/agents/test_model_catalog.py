"""The embedded LLM's weights: located through package metadata (never imported), assembled
once into the data dir, and refused when their size or sha256 is not the pinned one."""

import dataclasses

import pytest

from agents.errors import LLMUnavailable
from agents.model_catalog import CATALOG, LocalModel, model_file, operator_gguf

QWEN = CATALOG["qwen2.5-coder-0.5b-instruct"]


@pytest.mark.slow
def test_split_wheels_assemble_into_the_pinned_file(tmp_path):
    path = model_file(QWEN, tmp_path)
    assert path.parent == tmp_path and path.stat().st_size == 491_400_064
    assert path.read_bytes()[:4] == b"GGUF"
    assert model_file(QWEN, tmp_path) == path  # built once, then checked and reused


@pytest.mark.slow
@pytest.mark.parametrize(
    "change, message",
    [
        ({"size": 491_400_063}, "expected 491,400,063"),
        ({"sha256": "0" * 64}, "not the expected model"),
    ],
)
def test_other_bytes_are_refused(tmp_path, change, message):
    with pytest.raises(LLMUnavailable, match=message):
        model_file(dataclasses.replace(QWEN, **change), tmp_path)
    assert not (tmp_path / f"{QWEN.alias}.gguf").exists()  # nothing half-made is left to serve


def test_missing_wheel_says_how_to_install(tmp_path):
    missing = LocalModel(
        alias="absent",
        parts=(("no-such-model-part1", "x/part01.bin"),),
        size=1,
        sha256=None,
        install="pip install no-such-model",
    )
    with pytest.raises(LLMUnavailable, match=r"not installed.*pip install no-such-model"):
        model_file(missing, tmp_path)


def test_operator_gguf(tmp_path):
    with pytest.raises(LLMUnavailable, match="names no file"):
        operator_gguf(str(tmp_path / "nope.gguf"))
    own = tmp_path / "Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf"
    own.write_bytes(b"GGUF")
    assert operator_gguf(str(own)) == ("qwen2.5-coder-7b-instruct-q4_k_m", own)
