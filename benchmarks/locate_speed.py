"""How long locating an issue takes on a large repository, after indexing, fast mode.

    python -m benchmarks.locate_speed --tree DIR --out docs/eval/locate-speed.json

The tree is indexed (phase 1, into the configured data dir, reused when indexed already) and a
warmed process locates the issue dev set's issue texts in it, timing each whole call
(`search.locate.locate_files`, k=50), the first apart as well. The texts are other projects'
issues: what is measured is the reading and the evidence over every file of a large tree, not
whether the files are right.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks.common import machine_line

ISSUES = Path(__file__).resolve().parent / "questions" / "issues"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--issues", type=int, default=60, help="how many issue texts")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from reporift.commands import prepare

    prepare()  # a new data dir gets its tables
    import numpy as np
    from django.core.management import call_command

    from indexing.models import Repository
    from search.evaluation.issue_rows import load_issue_rows
    from search.locate import locate_files
    from search.warmup import warm_up

    name = "locate-speed"
    if not Repository.objects.filter(name=name, active_run__isnull=False).exists():
        call_command("index_repo", str(args.tree.resolve()), "--name", name)
    repository = Repository.objects.get(name=name)
    warm_up()
    texts = [row.issue for row in load_issue_rows(ISSUES, "all")][: args.issues]
    latencies, stages = [], {}
    for text in texts:
        started = time.perf_counter()
        located = locate_files(repository=repository, issue=text, k=50)
        latencies.append((time.perf_counter() - started) * 1000)
        for stage, ms in located.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    report = {
        "machine": machine_line(),
        "tree": str(args.tree),
        "units": repository.active_run.units_total,
        "issues": len(texts),
        "issue_chars_p50": int(np.median([len(t) for t in texts])),
        # The first call also reads which file imports which (`search.import_graph`), once
        # per generation: what a server's first locate after an index pays.
        "first_ms": round(latencies[0], 1),
        "p50_ms": round(float(np.percentile(latencies, 50)), 1),
        "p95_ms": round(float(np.percentile(latencies, 95)), 1),
        "stages_p50_ms": {k: round(float(np.median(v)), 1) for k, v in stages.items()},
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
