"""How good are the labelling agents' labels? Measured on human labels, as CoSQA+ measured its
own against experts.

    python -m benchmarks.judge_quality --cosqa $COSQA [--webquery 300]
        [--cosqa-dev 50] [--methods judge,agents] [--data-dir var/benchmarks/judge]

Pairs: a seeded sample of WebQueryTest's labelled (query, code) pairs, and CoSQA dev queries
each with its gold snippet (relevant) and the best BM25 match that is not gold (taken as not
relevant, so this half's labels are noisier). Each pair is labelled by one LLM judgement and by
the agents with the configured LLM. The report (docs/eval/judge-quality-<model>.json) is
rewritten as pairs are done; answers are cached, so a rerun continues quickly. `--calibrate
SHARE` judges CoSQA dev pairs only and writes the threshold, and the screening band that sends
SHARE of them to tests, for the model's LABEL settings.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, setup_django

# CoSQA+ (Gong et al.), their agents against expert labels.
COSQA_PLUS = {"agents_accuracy": 0.964, "single_judge_accuracy": "0.82-0.83", "executable": 0.837}


def webquery_pairs(cosqa: Path, n: int, seed: int) -> list[dict]:
    rows = json.loads((cosqa / "test_webquery_labelled.json").read_text())
    sample = random.Random(seed).sample(rows, min(n, len(rows)))
    return [
        {"set": "webquery", "id": r["idx"], "query": r["doc"], "code": r["code"]}
        | {"gold": r["label"]}
        for r in sample
    ]


def cosqa_dev_pairs(
    cosqa: Path, n: int, seed: int, leave_out: frozenset = frozenset()
) -> list[dict]:
    """`n` seeded CoSQA dev queries, none of those in `leave_out` (query idx), two pairs each."""
    import bm25s

    code_map = json.loads((cosqa / "code_idx_map.txt").read_text())
    snippets = {str(idx): code for code, idx in code_map.items()}
    ids = list(snippets)
    queries = json.loads((cosqa / "cosqa-retrieval-dev-500.json").read_text())
    queries = [q for q in queries if str(q["idx"]) not in leave_out]
    sample = random.Random(seed).sample(queries, min(n, len(queries)))
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([snippets[i] for i in ids], stopwords="en", show_progress=False))
    pairs = []
    for row in sample:
        gold = str(row["retrieval_idx"])
        found, _ = retriever.retrieve(
            bm25s.tokenize([row["doc"]], stopwords="en", show_progress=False), k=5
        )
        other = next(ids[i] for i in found[0] if ids[i] != gold)
        for cid, label in ((gold, 1), (other, 0)):
            pairs.append(
                {
                    "set": "cosqa-dev",
                    "id": f"{row['idx']}:{cid}",
                    "query": row["doc"],
                    "code": snippets[cid],
                    "gold": label,
                }
            )
    return pairs


def queries_in(report: Path) -> frozenset:
    """The CoSQA dev queries a judge report labelled (its pair ids are `query:snippet`)."""
    rows = json.loads(report.read_text())["per_pair"]
    return frozenset(r["id"].split(":")[0] for r in rows if r["set"] == "cosqa-dev")


def interleave(a: list, b: list) -> list:
    """Both sets advance together, so a report written part-way covers both."""
    out, step = [], max(1, round(len(a) / max(1, len(b))))
    bi = iter(b)
    for i, item in enumerate(a):
        out.append(item)
        if i % step == step - 1:
            out.extend(x for x in [next(bi, None)] if x is not None)
    return out + list(bi)


def summary(rows: list[dict], method: str) -> dict:
    from search.evaluation.stats import bootstrap_ci

    done = [r for r in rows if r.get(method, {}).get("label") in (0, 1)]
    gold = np.array([r["gold"] for r in done])
    said = np.array([r[method]["label"] for r in done])
    correct = (gold == said).astype(float)
    out = {
        "pairs": len(done),
        "errors": sum(1 for r in rows if method in r and r[method].get("label") is None),
        "accuracy": [round(x, 4) for x in bootstrap_ci(correct)],
        "precision": [round(x, 4) for x in bootstrap_ci(correct[said == 1])],
        "recall": [round(x, 4) for x in bootstrap_ci(said[gold == 1].astype(float))],
        "said_relevant": round(float(said.mean()), 4) if len(said) else 0.0,
        "seconds_per_pair": round(float(np.mean([r[method]["seconds"] for r in done])), 2)
        if done
        else 0.0,
    }
    if method == "agents":
        tests = [r["agents"]["test"] for r in done if r["agents"].get("test")]
        decided = [r["agents"].get("decided_by") for r in done]
        out["decided_by"] = {k: decided.count(k) for k in sorted(set(decided), key=str)}
        out["tests_run"] = len(tests)
        out["tests_executable"] = sum(bool(t["executable"]) for t in tests)
        out["executable_share"] = round(out["tests_executable"] / len(tests), 4) if tests else None
    return out


def calibrate(rows: list[dict], tested_share: float) -> dict:
    """The judge's threshold that labels these pairs best, and a screening band around it that
    holds `tested_share` of them (the pairs the agents will test). Chosen on CoSQA dev only."""
    p = np.array([r["judge"]["judge"]["p_yes"] for r in rows if r["judge"].get("judge")])
    gold = np.array([r["gold"] for r in rows if r["judge"].get("judge")])
    candidates = np.unique(np.round(p, 3))
    accuracy = [float(((p >= t) == gold).mean()) for t in candidates]
    threshold = float(candidates[int(np.argmax(accuracy))])
    at = float((p < threshold).mean())
    low = float(np.quantile(p, max(0.0, at - tested_share / 2)))
    high = float(np.quantile(p, min(1.0, at + tested_share / 2)))
    return {
        "pairs": len(p),
        "threshold": round(threshold, 3),
        "accuracy_at_threshold": round(max(accuracy), 4),
        "accuracy_at_0.5": round(float(((p >= 0.5) == gold).mean()), 4),
        "screen_band": [round(low, 3), round(high, 3)],
        "tested_share": tested_share,
    }


def compact(rows: list[dict]) -> list[dict]:
    """Per pair for the committed report: the labels and how they were reached, not the
    programs (those stay in the data dir's trails file)."""
    keep = ("label", "decided_by", "seconds", "error")
    out = []
    for row in rows:
        item = {k: row[k] for k in ("set", "id", "gold")}
        for method in ("judge", "agents"):
            if method in row:
                item[method] = {k: row[method].get(k) for k in keep}
                if row[method].get("test"):
                    item[method]["executable"] = row[method]["test"]["executable"]
        out.append(item)
    return out


def report(rows: list[dict], methods: list[str], model: str, total: int) -> dict:
    from search.evaluation.stats import paired_difference

    sets = sorted({r["set"] for r in rows})
    body: dict = {
        "command": "python -m benchmarks.judge_quality",
        "model": model,
        "pairs_planned": total,
        "pairs_done": len(rows),
        "cosqa_plus_paper": COSQA_PLUS,
        "by_set": {},
    }
    for name in [*sets, "all"]:
        chosen = rows if name == "all" else [r for r in rows if r["set"] == name]
        entry = {m: summary(chosen, m) for m in methods}
        both = [r for r in chosen if all(r.get(m, {}).get("label") in (0, 1) for m in methods)]
        if len(methods) == 2 and both:
            scores = [np.array([float(r[m]["label"] == r["gold"]) for r in both]) for m in methods]
            entry[f"accuracy_{methods[1]}_minus_{methods[0]}"] = paired_difference(
                scores[1], scores[0]
            )
        body["by_set"][name] = entry
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cosqa", type=Path, required=True, help="the CoSQA data directory")
    parser.add_argument("--webquery", type=int, default=300)
    parser.add_argument("--cosqa-dev", type=int, default=50, help="queries (two pairs each)")
    parser.add_argument("--methods", default="judge,agents")
    parser.add_argument("--data-dir", default="var/benchmarks/judge")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    # A threshold chosen on the calibration pairs is checked on queries they do not hold.
    parser.add_argument("--hold-apart", type=Path, help="a report whose CoSQA queries to skip")
    parser.add_argument(
        "--calibrate", type=float, metavar="SHARE", help="the model's LABEL threshold and band"
    )
    args = parser.parse_args()
    if args.calibrate is not None:
        args.webquery, args.methods = 0, "judge"
    Path(args.data_dir).mkdir(parents=True, exist_ok=True)
    setup_django(str(Path(args.data_dir).resolve()))
    from agents.llm import get_llm_client
    from labels.agents import LabelConfig, Labeller, Pair
    from sandbox import get_sandbox, limits

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    client = get_llm_client()
    slug = re.sub(r"[^a-z0-9]+", "-", client.model.lower()).strip("-")
    name = "judge-calibration-pairs" if args.calibrate is not None else "judge-quality"
    out = args.out or ROOT / "docs" / "eval" / f"{name}-{slug}.json"
    held = queries_in(args.hold_apart) if args.hold_apart else frozenset()
    pairs = interleave(
        webquery_pairs(args.cosqa, args.webquery, args.seed),
        cosqa_dev_pairs(args.cosqa, args.cosqa_dev, args.seed, held),
    )
    labellers = {
        m: Labeller(
            client=client,
            sandbox=get_sandbox() if m == "agents" else None,
            limits=limits(),
            config=LabelConfig.for_model(client.model, m),
        )
        for m in methods
    }
    # Whole trails, programs included; named after the report so that runs with other samples
    # (calibration, held-apart queries, WebQueryTest) keep theirs side by side.
    trails = Path(args.data_dir) / f"trails-{out.stem}.jsonl"
    rows: list[dict] = []
    for number, item in enumerate(pairs, start=1):
        pair = Pair(item["id"], item["query"], item["id"], item["code"])
        row = {k: item[k] for k in ("set", "id", "gold")}
        for method, labeller in labellers.items():
            row[method] = labeller.label(pair)
        rows.append(row)
        if number % 10 == 0 or number == len(pairs):
            body = report(rows, methods, client.model, len(pairs))
            out.write_text(json.dumps({**body, "per_pair": compact(rows)}, indent=1) + "\n")
            trails.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(f"{number}/{len(pairs)}", json.dumps(body["by_set"]["all"]), flush=True)
    if args.calibrate is not None:
        found = {"model": client.model, **calibrate(rows, args.calibrate)}
        target = ROOT / "docs" / "eval" / f"judge-calibration-{slug}.json"
        target.write_text(json.dumps(found, indent=1) + "\n")
        print(json.dumps(found))


if __name__ == "__main__":
    main()
