"""Per-query speed on large repositories against semble, in one run: for each question file
(one repository each), fast mode on phase 1 (`manage.py evaluate --warm --phase 1`: the
repository indexed, warmed as a server warms it, then asked its questions one after the other)
and then semble 0.7.0 given our static table on the same tree (`benchmarks.semble_questions`),
so that the two are timed minutes apart under the same load. The report gives, per repository,
its units, both systems' p50 and p95, their ratios, our stages' medians, and the machine's
load beside each measurement.

    python -m benchmarks.query_speed --files benchmarks/questions/large/dev/{git,etcd}.jsonl \\
        --semble-python /work/semble-venv/bin/python --semble-model DIR [--part tune] \\
        [--out docs/eval/query-speed.json]

The data dir is REPORIFT_DATA_DIR (indexes are reused when the tree did not change); indexing
stops after phase 1 (REPORIFT_PHASE2_MAX_UNITS=1). semble's model folder is made from this data
dir's static table when it does not exist, and refused when it holds another
(`benchmarks.bench_questions`).
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

from benchmarks.bench_questions import _commit, semble_model
from benchmarks.common import ROOT, machine_line
from search.evaluation.metrics import percentile


def _load() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def _env() -> dict[str, str]:
    return {**os.environ, "REPORIFT_PHASE2_MAX_UNITS": "1", "PYTHONPATH": str(ROOT)}


def _run(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - started, 1)


def _figures(report: dict) -> dict:
    latencies = [query["latency_ms"] for query in report["per_query"]]
    return {
        "n": len(latencies),
        "p50_ms": round(percentile(latencies, 50), 2),
        "p95_ms": round(percentile(latencies, 95), 2),
    }


def _stages(report: dict) -> dict[str, float]:
    """Our stages' medians over the questions (streams, query vector, resolving, ordering)."""
    stages: dict[str, list[float]] = {}
    for query in report["per_query"]:
        for stage, ms in query.get("timings_ms", {}).items():
            stages.setdefault(stage, []).append(ms)
    return {stage: round(percentile(ms, 50), 2) for stage, ms in sorted(stages.items())}


def measure(file: Path, *, part: str, semble: list[str], work: Path) -> dict:
    env = _env()
    ours_out, peer_out = work / f"{file.stem}-ours.json", work / f"{file.stem}-semble.json"
    load_ours = _load()
    evaluate = [sys.executable, "manage.py", "evaluate", "--format", "questions", str(file)]
    ours_s = _run(
        [*evaluate, "--part", part, "--phase", "1", "--warm", "--out", str(ours_out)], env
    )
    load_peer = _load()
    peer_s = _run([*semble, "--questions", str(file), "--part", part, "--out", str(peer_out)], env)
    ours, peer = (json.loads(path.read_text()) for path in (ours_out, peer_out))
    mine, theirs = _figures(ours), _figures(peer)
    return {
        "units": sum(ours["corpus_units"].values()),
        "ours": mine | {"load": load_ours, "command_s": ours_s, "warm_up": ours.get("warm_ups")},
        "semble": theirs
        | {"load": load_peer, "command_s": peer_s, "indexing_s": peer.get("indexing_s")},
        "ratio_p50": round(mine["p50_ms"] / theirs["p50_ms"], 2) if theirs["p50_ms"] else None,
        "ratio_p95": round(mine["p95_ms"] / theirs["p95_ms"], 2) if theirs["p95_ms"] else None,
        "our_stages_p50_ms": _stages(ours),
        "file_ndcg@10": {
            "ours": ours["per_repository"]["all"]["first_file_ndcg@10"]["mean"],
            "semble": peer.get("per_repository", {})
            .get("all", {})
            .get("first_file_ndcg@10", {})
            .get("mean"),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, nargs="+", required=True, help="question files")
    parser.add_argument("--part", choices=("tune", "final", "all"), default="tune")
    parser.add_argument("--semble-python", required=True, help="the python of semble's venv")
    parser.add_argument("--semble-model", required=True, help="semble's model folder")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    env = _env()
    _run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env)
    model = semble_model(args.semble_python, Path(args.semble_model), env, [])
    semble = [args.semble_python, "-m", "benchmarks.semble_questions"]
    semble += ["--model", args.semble_model]
    report: dict = {
        "command": "python -m benchmarks.query_speed " + " ".join(sys.argv[1:]),
        **_commit(),
        "semble_table_sha256": model["table_sha256"],
        "machine": machine_line(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": _load(),
        "repositories": {},
    }
    with tempfile.TemporaryDirectory(prefix="query-speed-") as work:
        for file in args.files:
            figures = measure(file, part=args.part, semble=semble, work=Path(work))
            report["repositories"][file.stem] = figures
            print(file.stem, json.dumps(figures), flush=True)
    report["load_after"] = _load()
    return emit(report, args.out)


def emit(report: dict, out: Path | None) -> int:
    """Print the report, and write it to `out` when given."""
    text = json.dumps(report, indent=1) + "\n"
    if out:
        out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
