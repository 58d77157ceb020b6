"""What kinds of evidence add to `locate`'s file ranking, read from an issues report alone.

`evaluate --format issues` keeps, for every issue, each evidence kind's file ranks (its first
50 files). Fused again here under `search.locate.LOCATE_WEIGHTS`, once as they are and once
with the named kinds' weights at 0, they give the kinds' paired effect per part (the tuning
part and the held-apart fifth) with 95% intervals, without indexing anything again; `--grid`
tries other weights for the named kinds on the tuning part, where they are chosen.

    python -m benchmarks.issue_fusion REPORT.json --kinds imported,importers \
        --grid 0,1,2,3 --out docs/eval/issues-imports.json

Evidence kinds computed from the others' fusion (the imports of the likeliest files) were
recorded under the weights the run had; the named kinds' own weights do not change them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path

from search.evaluation.issue_rows import file_metrics
from search.evaluation.questions import part_of
from search.evaluation.stats import bootstrap_ci, paired_difference

KEYS = ("acc@1", "acc@5", "acc@10", "mrr")
DEPTH = 50


def fused_metrics(row: dict, weights: dict[str, float]) -> dict[str, float]:
    from search.locate import rank_files

    ranked = rank_files(
        row["evidence"], weights, about_tests=row["about_tests"], about_docs=row["about_docs"]
    )
    return file_metrics([path for path, _ in ranked[:DEPTH]], row["gold"])


def compare(rows: list[dict], weights: dict[str, float], kinds: list[str]) -> dict:
    without = weights | dict.fromkeys(kinds, 0.0)
    out: dict = {}
    for part in ("tune", "final", "all"):
        subset = [r for r in rows if part == "all" or part_of(r["id"]) == part]
        with_kinds = [fused_metrics(r, weights) for r in subset]
        base = [fused_metrics(r, without) for r in subset]
        figures: dict = {"n": len(subset)}
        for key in KEYS:
            new, old = [m[key] for m in with_kinds], [m[key] for m in base]
            diff = paired_difference(new, old)
            figures[key] = {
                "with": round(bootstrap_ci(new)[0], 4),
                "without": round(bootstrap_ci(old)[0], 4),
                "difference": round(diff["difference"], 4),
                "ci95": [round(diff["low"], 4), round(diff["high"], 4)],
            }
        out[part] = figures
    return out


def grid(rows: list[dict], weights: dict[str, float], kinds: list[str], values: list[float]):
    tune = [r for r in rows if part_of(r["id"]) == "tune"]
    results = []
    for combination in itertools.product(values, repeat=len(kinds)):
        trial = weights | dict(zip(kinds, combination, strict=True))
        metrics = [fused_metrics(r, trial) for r in tune]
        means = {key: round(sum(m[key] for m in metrics) / len(metrics), 4) for key in KEYS}
        results.append({"weights": dict(zip(kinds, combination, strict=True)), **means})
    return sorted(results, key=lambda r: (-r["acc@5"], -r["mrr"]))


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    import django

    django.setup()
    from search.locate import LOCATE_WEIGHTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--kinds", required=True, help="comma-separated evidence kinds")
    parser.add_argument("--grid", default="", help="weights to try for each kind (tuning part)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    report = json.loads(args.report.read_text())
    rows = [row for row in report["per_query"] if "evidence" in row]
    missing = [k for k in kinds if not any(k in row["evidence"] for row in rows)]
    if missing:
        parser.error(f"the report holds no evidence of kind {', '.join(missing)}")
    out = {
        "what": f"locate's file ranking with and without {', '.join(kinds)}, re-fused from "
        f"{args.report.name}'s recorded evidence under search.locate.LOCATE_WEIGHTS",
        "weights": {k: LOCATE_WEIGHTS.get(k, 0.0) for k in kinds},
        "parts": compare(rows, LOCATE_WEIGHTS, kinds),
    }
    if args.grid:
        values = [float(v) for v in args.grid.split(",")]
        out["grid_tune"] = grid(rows, LOCATE_WEIGHTS, kinds, values)
    for part, figures in out["parts"].items():
        print(
            f"{part} ({figures['n']}): "
            + "; ".join(
                f"{k} {f['without']:.3f} -> {f['with']:.3f} "
                f"{f['difference']:+.3f} [{f['ci95'][0]:+.3f}, {f['ci95'][1]:+.3f}]"
                for k, f in figures.items()
                if k != "n"
            )
        )
    for trial in out.get("grid_tune", [])[:8]:
        print("tune", trial)
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
