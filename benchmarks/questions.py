"""The developer-question sets (benchmarks/questions/): check rows, and compare two evaluation
reports of one query by query, overall, per language (the other-language sets) and per kind,
with paired 95% intervals.

    python -m benchmarks.questions check benchmarks/questions/dev
    python manage.py evaluate --format questions benchmarks/questions/dev --out A.json
    python -m benchmarks.questions compare BASE.json NEW.json [--out REPORT.json]
    python -m benchmarks.questions latency OURS.json PEER.json [--out REPORT.json]

Reports are paired on the queries' ids, so the two sides may come from two checkouts (today's
pipeline and a change) indexed in two data directories, or from two systems: fast mode against
BM25 alone (`evaluate ... --stages S4`) or against semble (`benchmarks.semble_questions`) on the
other-language sets (benchmarks/questions/languages/dev) is `compare BM25.json FAST.json` and
`compare SEMBLE.json FAST.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from search.evaluation.metrics import DECIDING_KEY, reported_keys
from search.evaluation.repositories import corpus_of, repository_keys, repository_mean
from search.evaluation.stats import paired_difference


def check(paths: list[Path]) -> int:
    from search.evaluation.datasets import DatasetError, load_dataset
    from search.evaluation.questions import part_of

    failed = 0
    for path in paths:
        try:
            dataset = load_dataset(path, "questions", part="all")
        except DatasetError as exc:
            print(f"error: {exc}")
            failed += 1
            continue
        kinds = Counter(q.kind for q in dataset.queries)
        parts = Counter(part_of(q.query_id) for q in dataset.queries)
        print(
            f"{path}: {len(dataset.queries)} rows over {len(dataset.corpora)} packages; "
            + ", ".join(f"{k} {kinds[k]}" for k in sorted(kinds))
            + f"; tune {parts['tune']}, final {parts['final']}"
        )
    return 1 if failed else 0


def _values(report: dict, key: str, ids: list[str]) -> list[float]:
    by_id = {entry["id"]: entry for entry in report["per_query"]}
    if key == "definition_first":
        return [float(by_id[i]["definition_first"]) for i in ids]
    return [by_id[i]["metrics"][key] for i in ids]


def compare(base: dict, new: dict, *, shared_only: bool = False) -> dict:
    """`new` minus `base` on the queries both have, overall, per language and per kind."""
    # Rows of sets without languages or kinds (CoSQA) are compared overall only.
    rows = {e["id"]: e for e in base["per_query"]}
    shared = [e["id"] for e in new["per_query"] if e["id"] in rows]
    whole = len(shared) == len(base["per_query"]) == len(new["per_query"])
    if not (whole or (shared_only and shared)):
        raise SystemExit("the two reports hold other queries: compare the same part of one set")
    groups = {"all": shared}
    for field in ("language", "kind"):
        for value in sorted({rows[i].get(field) for i in shared} - {None, ""}):
            groups[value] = [i for i in shared if rows[i].get(field) == value]
    # File figures are compared where both reports computed them.
    shared_keys = [
        key
        for key in reported_keys(base["per_query"][0]["metrics"])
        if key in new["per_query"][0]["metrics"]
    ]
    out: dict = {}
    for group, ids in groups.items():
        keys = [*shared_keys, *(["definition_first"] if group == "symbol" else [])]
        row: dict = {"n_queries": len(ids)}
        for key in keys:
            before, after = _values(base, key, ids), _values(new, key, ids)
            diff = paired_difference(after, before)
            row[key] = {
                "base": round(sum(before) / len(ids), 4),
                "new": round(sum(after) / len(ids), 4),
                "difference": round(diff["difference"], 4),
                "ci95": [round(diff["low"], 4), round(diff["high"], 4)],
                "significant": diff["significant"],
            }
        row["per_repository"] = _per_repository(base, new, ids)
        out[group] = row
    return out


def _per_repository(base: dict, new: dict, ids: list[str]) -> dict:
    """The deciding figures of a group: the mean over repositories of each repository's mean,
    paired, its interval resampling questions within their repositories."""
    corpora = {e["id"]: corpus_of(e) for e in new["per_query"]}
    groups = [corpora[i] for i in ids]
    out: dict = {"n_repositories": len(set(groups))}
    keys = [
        key
        for key in repository_keys(base["per_query"][0]["metrics"])
        if key in new["per_query"][0]["metrics"]
    ]
    for key in keys:
        before, after = _values(base, key, ids), _values(new, key, ids)
        diff = paired_difference(after, before, groups=groups)
        out[key] = {
            "base": round(repository_mean(before, groups), 4),
            "new": round(repository_mean(after, groups), 4),
            "difference": round(diff["difference"], 4),
            "ci95": [round(diff["low"], 4), round(diff["high"], 4)],
            "significant": diff["significant"],
            "wins": diff["wins"],
            "losses": diff["losses"],
        }
    return out


def _delta(figure: dict) -> str:
    low, high = figure["ci95"]
    delta = f"{figure['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
    return f"**{delta}**" if figure["significant"] else delta


def deciding_markdown(comparison: dict, base_name: str, new_name: str) -> str:
    """The deciding figure per group (file NDCG@10, a file counted at its first result, the
    mean of per-repository means), the span NDCG@10 averaged the same way beside it; bold
    where the interval leaves out zero. Reports without the file figure show the span one."""
    lines = [
        f"| queries | n | repos | file NDCG@10 {base_name} | {new_name} | Δ [95%] "
        f"| wins / losses | span NDCG@10 {base_name} → {new_name} | Δ [95%] |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group, row in comparison.items():
        figures = row["per_repository"]
        file, span = figures.get(DECIDING_KEY), figures["ndcg@10"]
        deciding = (
            f"{file['base']:.3f} | {file['new']:.3f} | {_delta(file)} "
            f"| {file['wins']} / {file['losses']}"
            if file
            else "— | — | — | —"
        )
        lines.append(
            f"| {group} | {row['n_queries']} | {figures['n_repositories']} | {deciding} "
            f"| {span['base']:.3f} → {span['new']:.3f} | {_delta(span)} |"
        )
    return "\n".join(lines)


def _cell(figure: dict) -> str:
    low, high = figure["ci95"]
    return (
        f"{figure['base']:.3f} → {figure['new']:.3f} "
        f"| {figure['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
    )


def markdown(comparison: dict, base_name: str, new_name: str) -> str:
    files = "file_recall@10" in comparison["all"]
    # Reports from before file NDCG was computed have none: its columns are left out then.
    file_ndcg = "file_ndcg@10" in comparison["all"]
    lines = [
        f"| queries | n | NDCG@10 {base_name} | NDCG@10 {new_name} | Δ NDCG@10 [95%] "
        "| S@1 | Δ S@1 [95%] | MRR | Δ MRR [95%] |"
        + (" file recall@10 | Δ [95%] | files@10 | Δ [95%] |" if files else "")
        + (" file NDCG@10 | Δ [95%] |" if file_ndcg else ""),
        "|---|---|---|---|---|---|---|---|---|"
        + ("---|---|---|---|" if files else "")
        + ("---|---|" if file_ndcg else ""),
    ]
    for group, row in comparison.items():
        n = row["ndcg@10"]
        lines.append(
            f"| {group} | {row['n_queries']} | {n['base']:.3f} | {n['new']:.3f} "
            f"| {n['difference']:+.3f} [{n['ci95'][0]:+.3f}, {n['ci95'][1]:+.3f}] "
            f"| {_cell(row['success@1'])} | {_cell(row['mrr'])} |"
            + (f" {_cell(row['file_recall@10'])} | {_cell(row['files@10'])} |" if files else "")
            + (f" {_cell(row['file_ndcg@10'])} |" if file_ndcg else "")
        )
    return "\n".join(lines)


# Languages grouped by how their code looks to search (grammar family, unit sizes).
FAMILIES = {
    "javascript": "JavaScript/TypeScript",
    "typescript": "JavaScript/TypeScript",
    "go": "Go/Rust/C/C++",
    "rust": "Go/Rust/C/C++",
    "c": "Go/Rust/C/C++",
    "cpp": "Go/Rust/C/C++",
    "java": "JVM/.NET",
    "kotlin": "JVM/.NET",
    "scala": "JVM/.NET",
    "csharp": "JVM/.NET",
    "ruby": "Ruby/PHP/Lua/Bash",
    "php": "Ruby/PHP/Lua/Bash",
    "lua": "Ruby/PHP/Lua/Bash",
    "bash": "Ruby/PHP/Lua/Bash",
}


def latency(ours: dict, peer: dict) -> dict:
    """Per query latency of two systems run on the same questions, by language family: the
    p50s, their ratio, and our stages' p50s (streams, resolving rows, ordering)."""
    import numpy as np

    theirs = {q["id"]: q.get("latency_ms") for q in peer["per_query"]}
    groups: dict[str, dict[str, list[float]]] = {}
    for query in ours["per_query"]:
        family = FAMILIES.get(query.get("language", ""), "Swift/Elixir/Haskell/Zig")
        for name in ("all", family):
            group = groups.setdefault(name, {"ours": [], "peer": []})
            group["ours"].append(query["latency_ms"])
            group["peer"].append(theirs[query["id"]])
            for stage, ms in query.get("timings_ms", {}).items():
                group.setdefault(stage, []).append(ms)
    out = {}
    for name, values in groups.items():
        ours_p50, peer_p50 = float(np.median(values["ours"])), float(np.median(values["peer"]))
        out[name] = {
            "n": len(values["ours"]),
            "ours_p50_ms": round(ours_p50, 2),
            "peer_p50_ms": round(peer_p50, 2),
            "ratio": round(ours_p50 / peer_p50, 2) if peer_p50 else None,
            "stages_p50_ms": {
                stage: round(float(np.median(ms)), 2)
                for stage, ms in values.items()
                if stage not in ("ours", "peer")
            },
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_cmd = commands.add_parser("check", help="load rows and count them by kind and part")
    check_cmd.add_argument("paths", type=Path, nargs="+")
    compare_cmd = commands.add_parser("compare", help="paired differences of two reports")
    compare_cmd.add_argument("base", type=Path)
    compare_cmd.add_argument("new", type=Path)
    compare_cmd.add_argument("--out", type=Path)
    compare_cmd.add_argument(
        "--shared", action="store_true", help="on the queries both hold (a set that has grown)"
    )
    latency_cmd = commands.add_parser("latency", help="per-query latency of two runs, by family")
    latency_cmd.add_argument("ours", type=Path)
    latency_cmd.add_argument("peer", type=Path)
    latency_cmd.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.paths)
    if args.command == "latency":
        figures = latency(*(json.loads(p.read_text()) for p in (args.ours, args.peer)))
        print(json.dumps(figures, indent=1))
        if args.out:
            args.out.write_text(json.dumps(figures, indent=1) + "\n")
        return 0
    base, new = (json.loads(p.read_text()) for p in (args.base, args.new))
    comparison = compare(base, new, shared_only=args.shared)
    print(deciding_markdown(comparison, args.base.stem, args.new.stem))
    print()
    print(markdown(comparison, args.base.stem, args.new.stem))
    if args.out:
        args.out.write_text(json.dumps(comparison, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
