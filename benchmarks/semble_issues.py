"""The peer tool semble (PyPI `semble`, MIT) on the issue dev set, scored as RepoRift's
`evaluate --format issues` scores itself, so that their reports pair by issue id.

semble is given our static tier as its table (`benchmarks.semble_questions table`), indexes each
repository at each issue's base commit (written out of the git mirrors as our evaluation does),
and is asked with the issue's whole text; its results, chunks best first, are taken in file order
(a file at its first chunk) and scored with the same file Acc@k and MRR. Runs in semble's own
venv, importing no Django:

    PYTHONPATH=. /work/semble-venv/bin/python -m benchmarks.semble_issues \
        --model /work/semble-model --issues benchmarks/questions/issues --part tune \
        --mirrors /work/.mirror --out docs/eval/issues-semble-tune.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from benchmarks.common import OFFLINE, machine_line
from benchmarks.semble_questions import build_index
from search.evaluation.issue_rows import file_metrics, load_issue_rows, write_tree

DEPTH = 50  # files, as our systems rank them
CHUNKS = 200  # semble's results asked for, enough for about 50 files


def relative(path: str, root: Path) -> str:
    found = Path(path)
    return found.relative_to(root).as_posix() if found.is_absolute() else found.as_posix()


def evaluate(args: argparse.Namespace) -> dict:
    import os

    for name, value in OFFLINE.items():
        os.environ.setdefault(name, value)
    from semble.index.dense import load_model

    rows = load_issue_rows(args.issues, args.part)
    load_model(str(args.model.resolve()))
    groups = defaultdict(list)
    for row in rows:
        groups[(row.repo, row.base_commit)].append(row)
    per_query, index_s, latencies = {}, 0.0, []
    with tempfile.TemporaryDirectory(prefix="semble-issues-") as scratch:
        for number, ((repo, commit), group) in enumerate(sorted(groups.items()), start=1):
            tree = Path(scratch) / "tree"
            write_tree(repo, commit, args.mirrors, tree)
            index, seconds = build_index(tree, str(args.model.resolve()), None)
            index_s += seconds
            print(
                f"[{number}/{len(groups)}] {repo}@{commit[:12]}: {seconds:.1f} s", file=sys.stderr
            )
            for row in group:
                started = time.perf_counter()
                results = index.search(row.issue, top_k=CHUNKS)
                latencies.append((time.perf_counter() - started) * 1000)
                files = list(dict.fromkeys(relative(r.chunk.file_path, tree) for r in results))
                per_query[row.id] = {
                    "id": row.id,
                    "repo": row.repo,
                    "language": row.language,
                    "gold": list(row.gold_files),
                    "systems": {
                        "semble": {
                            "metrics": file_metrics(files[:DEPTH], row.gold_files),
                            "files": files[:10],
                            "ms": round(latencies[-1], 1),
                        }
                    },
                }
    entries = [per_query[row.id] for row in rows]
    keys = list(entries[0]["systems"]["semble"]["metrics"])
    overall = {
        key: round(sum(e["systems"]["semble"]["metrics"][key] for e in entries) / len(entries), 4)
        for key in keys
    }
    latencies.sort()
    return {
        "format": "issues",
        "system": "semble",
        "machine": machine_line(),
        "n_queries": len(entries),
        "overall": overall,
        "index_seconds": round(index_s, 1),
        "latency_ms": {"p50": round(latencies[len(latencies) // 2], 1)},
        "per_query": entries,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a model2vec folder")
    parser.add_argument("--issues", type=Path, required=True)
    parser.add_argument("--part", choices=("tune", "final", "all"), default="tune")
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    report = evaluate(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report["overall"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
