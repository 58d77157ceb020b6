"""Does an LLM's list of suspects help `locate` find an issue's files? Full mode's evidence
gathered for a seeded sample of the issue dev set's tuning part (the repositories indexed by
`evaluate --format issues` in the same data dir), then the files ranked with and without it,
paired per issue.

    python -m benchmarks.issue_suspects --sample 40 --out docs/eval/issues-suspects-MODEL.json

The model is the configured one (the embedded model unless OPENAI_BASE_URL names an endpoint);
its stage must be on for it (REPORIFT_LOCATE_SUSPECTS=1 forces it for the measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ISSUES = Path(__file__).resolve().parent / "questions" / "issues"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    import django

    django.setup()
    import numpy as np

    from agents.llm import get_llm_client
    from indexing.models import Repository
    from search.evaluation.issue_rows import file_metrics, load_issue_rows
    from search.evaluation.stats import paired_difference
    from search.locate import LOCATE_WEIGHTS, gather_evidence, is_about_docs, is_about_tests
    from search.locate import rank_files as fused

    # Asked anew: an answer from the completion cache would time nothing.
    get_llm_client().use_cache = False
    rows = load_issue_rows(ISSUES, "tune")
    rows = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
    entries = []
    for row in rows:
        name = f"issues-{row.repo.replace('/', '-')}-{row.base_commit[:12]}"
        repository = Repository.objects.get(name=name)
        started = time.perf_counter()
        found = gather_evidence(repository=repository, issue=row.issue, phase=1, mode="full")
        ranks = found.ranks(len(found.files.paths))
        entry = {"id": row.id, "gold": list(row.gold_files), "notices": found.notices}
        entry["ms"] = round((time.perf_counter() - started) * 1000, 1)
        for label, weight in (("fast", 0.0), ("full", LOCATE_WEIGHTS["suspect"])):
            ranked = fused(
                ranks,
                LOCATE_WEIGHTS | {"suspect": weight},
                about_tests=is_about_tests(found.clues),
                about_docs=is_about_docs(found.clues),
            )
            entry[label] = file_metrics([p for p, _ in ranked][:50], row.gold_files)
        entries.append(entry)
        print(row.id, entry["ms"], found.notices[:1], file=sys.stderr, flush=True)
    summary = {}
    for key in ("acc@1", "acc@5", "mrr"):
        full = [e["full"][key] for e in entries]
        fast = [e["fast"][key] for e in entries]
        diff = paired_difference(full, fast)
        summary[key] = {
            "fast": round(float(np.mean(fast)), 4),
            "full": round(float(np.mean(full)), 4),
            "difference": [round(diff[k], 4) for k in ("difference", "low", "high")],
        }
    unusable = sum(any("not used" in n for n in e["notices"]) for e in entries)
    report = {
        "n": len(entries),
        "unusable_answers": unusable,
        "llm_seconds_p50": round(float(np.median([e["ms"] for e in entries])) / 1000, 1),
        "summary": summary,
        "per_query": entries,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report["summary"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
