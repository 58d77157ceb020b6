# ruff: noqa  (a trial's scripts, kept in the commit that held them; see docs/eval/static-table-tokenlearn.json)
"""Teacher vectors of /work/tokenlearn/texts.jsonl with RepoRift's own serving embedder
(the tuned all-MiniLM-L6-v2 ONNX graph, mean-pooled, L2-normalised, texts cut at 128 word pieces).

Run inside RepoRift's venv:
    cd /work/main && REPORIFT_DATA_DIR=/work/tokenlearn/data DJANGO_SETTINGS_MODULE=reporift.settings \
        nice -n 10 .venv/bin/python /work/tokenlearn/teacher_vectors.py

Writes /work/tokenlearn/teacher/part-NNNN.npy (CHUNK texts each, resumable), then
/work/tokenlearn/teacher/vectors.npy (float32, one row per line of texts.jsonl) and model_id.txt.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
import django

django.setup()
from indexing.embedding import get_embedder  # noqa: E402

TEXTS = Path("/work/tokenlearn/texts.jsonl")
OUT = Path("/work/tokenlearn/teacher")
CHUNK = 2000


def main() -> None:
    OUT.mkdir(exist_ok=True)
    texts = [json.loads(line)["text"] for line in TEXTS.open()]
    embedder = get_embedder()
    (OUT / "model_id.txt").write_text(embedder.model_id + "\n")
    print("teacher", embedder.model_id, "texts", len(texts), flush=True)
    start = time.time()
    parts = []
    for number, begin in enumerate(range(0, len(texts), CHUNK)):
        part = OUT / f"part-{number:04d}.npy"
        parts.append(part)
        if part.exists():
            continue
        t0 = time.time()
        vectors = embedder.embed(texts[begin : begin + CHUNK]).astype(np.float32)
        np.save(part, vectors)
        print(
            f"{begin + len(vectors)}/{len(texts)} chunk {time.time() - t0:.1f}s "
            f"total {time.time() - start:.0f}s",
            flush=True,
        )
    vectors = np.concatenate([np.load(p) for p in parts])
    assert vectors.shape == (len(texts), embedder.dimension), vectors.shape
    np.save(OUT / "vectors.npy", vectors)
    print(f"done in {time.time() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
