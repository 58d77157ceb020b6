"""Search in other languages: fast mode, BM25 alone and semble on the other-language question
sets, paired by query id, overall, per language and per kind, with 95% intervals.

    python manage.py evaluate --format questions benchmarks/questions/languages/dev \
        --part tune --out FAST.json
    python manage.py evaluate --format questions benchmarks/questions/languages/dev \
        --part tune --stages S4 --out BM25.json
    PYTHONPATH=. /work/semble-venv/bin/python -m benchmarks.semble_questions \
        --model /work/semble-model --questions benchmarks/questions/languages/dev --part tune \
        --out docs/eval/languages-semble-tune.json
    python -m benchmarks.languages --fast FAST.json --bm25 BM25.json \
        --semble docs/eval/languages-semble-tune.json --out docs/eval/languages-dev.json

The three reports must hold the same queries (one part of one set). The combined report keeps
each query's figures and first results from every system, so that a language's failing rows can
be read without the full reports.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from search.evaluation.metrics import CI_KEYS
from search.evaluation.stats import bootstrap_ci, paired_difference

SYSTEMS = ("fast", "bm25", "semble")
PAIRS = (("fast", "bm25"), ("fast", "semble"))


def groups(per_query: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Query ids by group: all, each language, each kind (languages first)."""
    out = {"all": [e["id"] for e in per_query]}
    for field in ("language", "kind"):
        for value in sorted({e.get(field) or "" for e in per_query} - {""}):
            out[value] = [e["id"] for e in per_query if e.get(field) == value]
    return out


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in report["per_query"]}


def figures(report: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    entries = _by_id(report)
    out: dict[str, Any] = {"n_queries": len(ids)}
    for key in CI_KEYS:
        mean, low, high = bootstrap_ci([entries[i]["metrics"][key] for i in ids])
        out[key] = {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}
    return out


def paired(new: dict[str, Any], base: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    after, before = _by_id(new), _by_id(base)
    out: dict[str, Any] = {"n_queries": len(ids)}
    for key in CI_KEYS:
        diff = paired_difference(
            [after[i]["metrics"][key] for i in ids], [before[i]["metrics"][key] for i in ids]
        )
        out[key] = {
            "difference": round(diff["difference"], 4),
            "ci95": [round(diff["low"], 4), round(diff["high"], 4)],
            "significant": diff["significant"],
        }
    return out


def _top(entry: dict[str, Any]) -> list[str]:
    """The first three results, as `path:lines` or `path:qualname`, a mark where one covers a
    primary target."""
    shown = []
    for result in entry["results"][:3]:
        where = result.get("qualname") or f"{result.get('start_line')}-{result.get('end_line')}"
        shown.append(f"{'*' if result.get('covers_primary') else ''}{result['path']}:{where}")
    return shown


def combine(reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    ids = {name: [e["id"] for e in report["per_query"]] for name, report in reports.items()}
    first = ids[SYSTEMS[0]]
    if any(sorted(other) != sorted(first) for other in ids.values()):
        raise SystemExit("the reports hold other queries: evaluate the same part of one set")
    by_group = groups(reports["fast"]["per_query"])
    entries = {name: _by_id(report) for name, report in reports.items()}
    return {
        "n_queries": len(first),
        "groups": {group: len(members) for group, members in by_group.items()},
        "figures": {
            name: {group: figures(report, members) for group, members in by_group.items()}
            for name, report in reports.items()
        },
        "paired": {
            f"{new}_vs_{base}": {
                group: paired(reports[new], reports[base], members)
                for group, members in by_group.items()
            }
            for new, base in PAIRS
        },
        "corpus_units": reports["fast"].get("corpus_units"),
        "semble_corpus_chunks": reports["semble"].get("corpus_chunks"),
        "semble_chunks_by_extension": reports["semble"].get("corpus_chunks_by_extension"),
        "semble_indexing_s": reports["semble"].get("indexing_s"),
        "latency_ms": {name: report["latency_ms"] for name, report in reports.items()},
        "per_query": [
            {
                "id": query_id,
                "language": entries["fast"][query_id].get("language"),
                "kind": entries["fast"][query_id].get("kind"),
                "query": entries["fast"][query_id]["query"],
                "gold": entries["fast"][query_id]["gold"],
            }
            | {
                name: {
                    "ndcg@10": entries[name][query_id]["metrics"]["ndcg@10"],
                    "mrr": entries[name][query_id]["metrics"]["mrr"],
                    "top": _top(entries[name][query_id]),
                }
                for name in reports
            }
            for query_id in first
        ],
    }


def markdown(combined: dict[str, Any]) -> str:
    """One row per group: each system's NDCG@10, and fast mode's paired difference."""
    lines = [
        "| queries | n | fast NDCG@10 | BM25 alone | semble 0.7.0 | Δ fast vs BM25 [95%] "
        "| Δ fast vs semble [95%] | fast MRR | semble MRR |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def diff(pair: str, group: str) -> str:
        d = combined["paired"][pair][group]["ndcg@10"]
        text = f"{d['difference']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]"
        return f"**{text}**" if d["significant"] else text

    fig = combined["figures"]
    for group, n in combined["groups"].items():
        mrr = fig["fast"][group]["mrr"]["mean"], fig["semble"][group]["mrr"]["mean"]
        lines.append(
            f"| {group} | {n} | {fig['fast'][group]['ndcg@10']['mean']:.3f} "
            f"| {fig['bm25'][group]['ndcg@10']['mean']:.3f} "
            f"| {fig['semble'][group]['ndcg@10']['mean']:.3f} "
            f"| {diff('fast_vs_bm25', group)} | {diff('fast_vs_semble', group)} "
            f"| {mrr[0]:.3f} | {mrr[1]:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in SYSTEMS:
        parser.add_argument(f"--{name}", type=Path, required=True, help=f"{name}'s report")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--what", default="", help="a line saying how the reports were made")
    args = parser.parse_args(argv)
    reports = {name: json.loads(getattr(args, name).read_text()) for name in SYSTEMS}
    from benchmarks.common import machine_line

    combined = {"what": args.what, "machine": machine_line()} | combine(reports)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(combined, indent=1) + "\n")
    print(markdown(combined))
    return 0


if __name__ == "__main__":
    sys.exit(main())
