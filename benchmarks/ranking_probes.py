"""Probe what else might lift behaviour questions, on the developer questions' tuning part: each
probe adds an amount to fast mode's candidate scores before the shipped shape rules, replayed on
the candidates `benchmarks.structure_tune` caches, and is scored per kind against the shipped
order, paired.

    python -m benchmarks.ranking_probes --data-dir DIR --cache DIR/tune-cache \\
        [--out docs/eval/ranking-probes.json]
    python -m benchmarks.ranking_probes --data-dir DIR --cache DIR/tune-cache \\
        --sweep same_file=0.05,0.1,0.2 [--packages DIR --cosqa FILE] --out REPORT

`--sweep` tries one strength of the shipped shape rules at several values on every set given
(the cached candidates of `benchmarks.structure_tune`), paired against the shipped strengths.

The probes (sentence queries only; a name typed as the query is left to the rules):
- `bm25_only_class`: a class that only BM25 found steps back (big classes hold every word);
- `class`: every class steps back;
- `big_class`: a class steps back by the log of its length past 50 lines;
- `file_evidence`: a unit gains for each other unit of its file in the first 20;
- `static_cosine`: the static tier's code cosine, standardised over the candidates, is added
  (a second embedder's view, as semble ranks with it).
The held-apart fifth is never read.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, setup_django
from benchmarks.structure_tune import cached_candidates, replay

TUNE = "questions (tune)"


def _is_sentence(query) -> bool:
    from search.ranking.structure import query_shape

    return not query_shape(query.query).name


def _per_candidate(rule):
    """A probe from a rule on one candidate (result, the query's candidates) -> amount."""

    def adjust(query, results):
        if not _is_sentence(query):
            return [0.0] * len(results)
        return [rule(result, results) for result in results]

    return adjust


def _lines(unit) -> int:
    return unit.end_line - unit.start_line + 1


def probes(strength: float) -> dict:
    def bm25_only_class(result, _):
        only_bm25 = set(result.stream_ranks) <= {"S4"}
        return -strength if result.unit.kind == "class" and only_bm25 else 0.0

    def every_class(result, _):
        return -strength if result.unit.kind == "class" else 0.0

    def big_class(result, _):
        lines = _lines(result.unit)
        long_class = result.unit.kind == "class" and lines > 50
        return -strength * math.log(lines / 50) if long_class else 0.0

    def file_evidence(query, results):
        if not _is_sentence(query):
            return [0.0] * len(results)
        top = results[:20]
        counts = Counter(r.unit.path for r in top)
        return [strength * (counts[r.unit.path] - (r in top)) for r in results]

    return {
        "bm25_only_class": _per_candidate(bm25_only_class),
        "class": _per_candidate(every_class),
        "big_class": _per_candidate(big_class),
        "file_evidence": file_evidence,
        "static_cosine": _static_cosine(strength),
    }


def _static_cosine(weight: float):
    from indexing.static_tier import get_static_embedder
    from indexing.store import get_vector_store
    from reporift.standardise import zscore

    static = get_static_embedder()
    store = get_vector_store(static.model_id)

    def adjust(query, results):
        if not results or not _is_sentence(query):
            return [0.0] * len(results)
        ids = [str(r.unit.pk) for r in results]
        found = store.scores(
            static.embed([query.query])[0], ids, repository_id=results[0].unit.repository_id
        )
        cosines = np.array([found.get(i, 0.0) for i in ids])
        return list(weight * zscore(cosines))

    return adjust


def by_kind(rows, metrics) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"all": []}
    for (query, _, _), m in zip(rows, metrics, strict=True):
        out["all"].append(m["ndcg@10"])
        out.setdefault(query.kind, []).append(m["ndcg@10"])
    return out


def sweep(rows: dict[str, list], shipped, field: str, values: list[float]) -> list[dict]:
    """One shape-rule strength tried at each of `values`, the others as shipped, on every set:
    NDCG@10 per kind, paired against the shipped rules."""
    from dataclasses import replace as with_strength

    from search.evaluation.stats import paired_difference

    reference = {name: by_kind(r, replay(r, shipped)) for name, r in rows.items()}
    out = []
    for value in values:
        tried_strengths = with_strength(shipped, **{field: value})
        entry: dict = {"rule": field, "strength": value}
        for name, r in rows.items():
            tried = by_kind(r, replay(r, tried_strengths))
            entry[name] = {}
            for kind, scores in tried.items():
                diff = paired_difference(scores, reference[name][kind])
                entry[name][kind] = {
                    "ndcg@10": round(float(np.mean(scores)), 4),
                    "vs_shipped": [round(diff[k], 4) for k in ("difference", "low", "high")],
                }
        out.append(entry)
        print(field, value, {n: entry[n]["all"]["vs_shipped"] for n in rows})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=ROOT / "benchmarks/questions/dev")
    parser.add_argument("--packages", type=Path, help="the package benchmark's folder")
    parser.add_argument("--exclude-packages", default="matplotlib,pip,crewai,celery,chromadb")
    parser.add_argument("--cosqa", type=Path, help="cosqa-retrieval-dev-500.json")
    parser.add_argument(
        "--sweep",
        help="FIELD=V1,V2,...: one shape-rule strength (search.ranking.structure.Strengths) "
        "on every set given, instead of the probes",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs/eval/ranking-probes.json")
    args = parser.parse_args()
    setup_django(str(Path(args.data_dir).resolve()))
    from django.conf import settings

    from benchmarks.common import without_packages
    from search.evaluation.datasets import load_dataset
    from search.evaluation.stats import paired_difference
    from search.ranking.structure import Strengths

    dataset = load_dataset(args.questions, "questions", part="tune")
    rows = cached_candidates(TUNE, dataset, args.cache)
    shipped = Strengths(**settings.REPORIFT["SEARCH"]["STRUCTURE"])
    if args.sweep:
        field, _, values = args.sweep.partition("=")
        sets = {TUNE: rows}
        if args.packages:
            excluded = [p for p in args.exclude_packages.split(",") if p]
            packages = without_packages(load_dataset(args.packages / "dev.jsonl", "repo"), excluded)
            sets["dev packages"] = cached_candidates("dev packages", packages, args.cache)
        if args.cosqa:
            cosqa = load_dataset(args.cosqa, "cosqa")
            sets["CoSQA dev"] = cached_candidates("CoSQA dev", cosqa, args.cache)
        report = {
            "command": f"python -m benchmarks.ranking_probes --sweep {args.sweep}",
            "sets": {name: len(r) for name, r in sets.items()},
            "shipped": {
                name: round(float(np.mean(by_kind(r, replay(r, shipped))["all"])), 4)
                for name, r in sets.items()
            },
            "sweep": sweep(sets, shipped, field, [float(v) for v in values.split(",")]),
        }
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        return
    reference = by_kind(rows, replay(rows, shipped))
    report = {
        "command": "python -m benchmarks.ranking_probes",
        "queries": len(rows),
        "shipped": {kind: round(float(np.mean(v)), 4) for kind, v in reference.items()},
        "probes": [],
    }
    for strength in (0.1, 0.25, 0.5, 1.0):
        for name, adjust in probes(strength).items():
            tried = by_kind(rows, replay(rows, shipped, adjust))
            entry = {"probe": name, "strength": strength}
            for kind, values in tried.items():
                diff = paired_difference(values, reference[kind])
                entry[kind] = {
                    "ndcg@10": round(float(np.mean(values)), 4),
                    "vs_shipped": [round(diff[k], 4) for k in ("difference", "low", "high")],
                }
            report["probes"].append(entry)
            print(name, strength, {k: entry[k]["vs_shipped"] for k in tried})
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
