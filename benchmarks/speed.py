"""Speed against semble on the same trees, in one run: the three figures a user feels, each with
the machine's load beside it.

1. Time to first answer (`benchmarks.time_to_answer`): each tree added to a fresh data dir in a
   cold process and asked until it answers; semble indexing the same tree and answering.
2. Per query, one repository at a time (`benchmarks.query_speed`): every tree indexed into one
   data dir, warmed and asked its tuning questions; semble asked the same on the same tree.
3. All repositories at once (`benchmarks.across_speed`): that data dir's repositories searched
   together, in one process warmed as a server warms. semble searches one repository at a
   time; its figure beside ours is asking every repository in turn (the sum of its
   per-repository medians from step 2), what a caller of semble pays for the same question.

    python -m benchmarks.speed --files benchmarks/questions/large/dev/{git,etcd}.jsonl \\
        --semble-python PY --semble-model DIR [--data-dir var/speed/all] \\
        [--out docs/eval/speed.json]

Each question file names one corpus of its set's manifest (`corpora.json` beside the rows'
folder), fetched first (`python -m benchmarks.corpora fetch`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_questions import _commit
from benchmarks.common import ROOT, machine_line
from benchmarks.query_speed import _load
from search.evaluation.corpus_manifest import corpora_dir, corpus_root, find_manifest
from search.evaluation.corpus_manifest import read_manifest as read_corpora


def trees(files: list[Path]) -> dict[str, Path]:
    """Each question file's corpus root, by the file's name (its corpus)."""
    found = {}
    for file in files:
        entries = read_corpora(find_manifest(file))
        if file.stem not in entries:
            raise SystemExit(f"{file}: no corpus named {file.stem} in its set's manifest")
        found[file.stem] = corpus_root(entries[file.stem], corpora_dir())
    return found


def _module(name: str, args: list[str], env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", name, *args], cwd=ROOT, env=env, check=True)


def combined(first: dict, per_query: dict, across: dict, names: dict[str, Path]) -> dict:
    """One row per tree (its first answer and its per-query figures, ours and semble's) and the
    across-repositories figures, from the three reports."""
    by_tree = {str(Path(row["tree"]).resolve()): row for row in first["trees"]}
    rows = {}
    for name, root in names.items():
        tta, query = by_tree.get(str(root), {}), per_query["repositories"][name]
        rows[name] = {
            "units": query["units"],
            "first_answer_s": tta.get("time_to_first_answer_s"),
            "semble_first_answer_s": tta.get("semble_time_to_first_answer_s"),
            "first_answer_ratio": tta.get("ratio_to_semble"),
            "first_answer_load": tta.get("loadavg_1min_before"),
            "query_p50_ms": query["ours"]["p50_ms"],
            "query_p95_ms": query["ours"]["p95_ms"],
            "semble_query_p50_ms": query["semble"]["p50_ms"],
            "semble_query_p95_ms": query["semble"]["p95_ms"],
            "query_ratio_p50": query["ratio_p50"],
            "query_ratio_p95": query["ratio_p95"],
            "query_load": query["ours"]["load"],
            "semble_query_load": query["semble"]["load"],
        }
    semble_in_turn = sum(row["semble_query_p50_ms"] for row in rows.values())
    routed = across["routed"]
    return {
        "trees": rows,
        "across": {
            "repositories": across["repositories"],
            "units": across["units"],
            "first_ms": routed["first_ms"],
            "next_p50_ms": routed["next_p50_ms"],
            "next_p95_ms": routed["next_p95_ms"],
            "every_repository_ranked_p50_ms": across["every_repository_ranked"]["next_p50_ms"],
            "semble_every_repository_in_turn_ms": round(semble_in_turn, 1),
            "load": [across["load_before"], across["load_after"]],
            "queries": across["queries"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, nargs="+", required=True, help="question files")
    parser.add_argument("--semble-python", required=True, help="the python of semble's venv")
    parser.add_argument("--semble-model", required=True, help="semble's model folder")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var" / "speed" / "all")
    parser.add_argument("--limit", type=int, default=40, help="questions asked across all")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "eval" / "speed.json")
    args = parser.parse_args(argv)
    names = trees(args.files)
    data = args.data_dir.resolve()
    env = {**os.environ, "REPORIFT_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    semble = ["--semble-python", args.semble_python, "--semble-model", args.semble_model]
    started, load_before = time.perf_counter(), _load()
    with tempfile.TemporaryDirectory(prefix="speed-") as scratch:
        work = Path(scratch)
        files, trees_arg = [str(f) for f in args.files], ",".join(map(str, names.values()))
        out = {step: str(work / f"{step}.json") for step in ("first", "query", "across")}
        # Per query first: it indexes every tree into the data dir and prepares its models, which
        # the first answers reuse (not what they time) and the search across all of them reads.
        _module("benchmarks.query_speed", ["--files", *files, "--out", out["query"], *semble], env)
        first = ["--trees", trees_arg, "--out", out["first"], "--models", str(data / "models")]
        _module("benchmarks.time_to_answer", [*first, "--full-max-units", "1", *semble], env)
        across = ["--data-dir", str(data), "--questions", *files, "--limit", str(args.limit)]
        _module("benchmarks.across_speed", [*across, "--out", out["across"]], env)
        reports = [json.loads(Path(out[step]).read_text()) for step in ("first", "query", "across")]
    report = {
        "command": "python -m benchmarks.speed " + " ".join(argv or sys.argv[1:]),
        **_commit(),
        "machine": machine_line(),
        "cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": load_before,
        "load_after": _load(),
        "minutes": round((time.perf_counter() - started) / 60, 1),
        **combined(*reports, names),
        "reports": dict(zip(("first_answer", "per_query", "across"), reports, strict=True)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: report[k] for k in ("trees", "across")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
