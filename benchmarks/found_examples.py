"""Run what you found, measured: for developer questions over dev packages, the first function,
method or class fast mode finds gets an example written by the embedded model and run in the
sandbox, through the product's own path (`tryouts.services`). Reports the share whose check
passed (with its interval), how the others ended, and every program and output, for reading.

    python -m benchmarks.found_examples --model qwen2.5-coder-0.5b-instruct --n 100
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import ROOT, machine_line, setup_django

# Small dev packages: each indexes in seconds, and together they mix libraries of several
# kinds (templates, HTTP, a terminal UI, messaging, a test runner, websockets).
PACKAGES = ("jinja2", "urllib3", "rich", "kombu", "_pytest", "websockets")
QUESTIONS = ROOT / "benchmarks" / "questions" / "dev"


def found_units(n: int, seed: int) -> list[tuple[str, object]]:
    """(question, first runnable result) for `n` questions drawn from PACKAGES."""
    from indexing.models import CodeUnit, IndexRun, Repository
    from indexing.services import index_run_execute, index_run_start, repository_create
    from search.evaluation.questions import package_root
    from search.services import search

    rows = []
    for package in PACKAGES:
        for line in (QUESTIONS / f"{package}.jsonl").read_text().splitlines():
            rows.append(json.loads(line))
    random.Random(seed).shuffle(rows)
    repositories: dict[str, Repository] = {}
    chosen: list[tuple[str, CodeUnit]] = []
    seen: set[int] = set()
    for row in rows:
        if len(chosen) == n:
            break
        package = row["package"]
        if package not in repositories:
            repository = Repository.objects.filter(name=f"pkg-{package.strip('_')}").first()
            if repository is None:
                repository = repository_create(
                    name=f"pkg-{package.strip('_')}", source=str(package_root(package))
                )
                run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
                assert run.status == IndexRun.Status.SUCCEEDED, run.error
                repository.refresh_from_db()
            repositories[package] = repository
        response = search(repository=repositories[package], query=row["query"], k=10)
        runnable = [r.unit for r in response.results if r.unit.kind != CodeUnit.Kind.MODULE]
        if runnable and runnable[0].pk not in seen:
            seen.add(runnable[0].pk)
            chosen.append((row["query"], runnable[0]))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var/benchmarks/examples/data")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    out = args.out or ROOT / "docs" / "eval" / f"examples-{args.model}.json"
    os.environ["REPORIFT_LLM_EMBEDDED_MODEL"] = args.model
    os.environ.pop("OPENAI_BASE_URL", None)
    # Without a broker an example runs inline when asked for (eager Celery), not in a thread
    # beside this loop: the loop reads each example finished.
    os.environ["REPORIFT_EAGER_IN_THREAD"] = "0"
    setup_django(str(args.data_dir))
    from tryouts.services import example_execute, example_request

    records: list[dict] = []
    started = time.perf_counter()
    for number, (question, unit) in enumerate(found_units(args.n, args.seed), start=1):
        example = example_request(unit=unit)  # stored per unit and model: a rerun resumes
        example.refresh_from_db()
        if not example.is_finished:  # left queued by an interrupted run
            example = example_execute(example_id=example.pk)
        records.append(
            {
                "question": question,
                "repository": unit.repository.name,
                "path": unit.path,
                "qualname": unit.qualname,
                "kind": unit.kind,
                "status": example.status,
                "prompt_version": example.prompt_version,
                "programs_tried": len(example.attempts),
                # passed only after a failed check was corrected from what the run printed
                "checks_corrected": example.status == "passed"
                and any(a["outcome"].startswith("an assertion failed") for a in example.attempts),
                "seconds": example.seconds,
                "error": example.error,
                "program": example.program,
                "output": example.stdout[-1500:],
                "stderr_tail": example.stderr[-800:],
            }
        )
        print(f"{number:3d} {example.status:12s} {example.seconds:6.1f}s {unit.qualname}")
        # Written after every example: a run cut short still reports the examples it made.
        report = _report(args, records, time.perf_counter() - started)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "examples"}, indent=1))
    return 0


def _report(args: argparse.Namespace, records: list[dict], wall_s: float) -> dict:
    from search.evaluation.stats import bootstrap_ci

    statuses = Counter(r["status"] for r in records)
    passed = [float(r["status"] == "passed") for r in records]
    return {
        "command": f"python -m benchmarks.found_examples --model {args.model} --n {args.n}",
        "machine": machine_line(),
        "model": args.model,
        "packages": list(PACKAGES),
        "results": len(records),
        "passed_share": [round(x, 4) for x in bootstrap_ci(passed)],
        "passed_after_correcting_checks": sum(r["checks_corrected"] for r in records),
        "statuses": dict(statuses),
        "mean_seconds": round(sum(r["seconds"] for r in records) / max(1, len(records)), 1),
        "wall_seconds": round(wall_s, 1),
        "examples": records,
    }


if __name__ == "__main__":
    raise SystemExit(main())
