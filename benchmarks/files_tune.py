"""Choose the strengths of the file-aware rules (`search.ranking.files`: the spread over files,
a file's evidence as a whole and its opening lines, for questions that ask how a part works) on
the developer questions' tuning part, paired against today's strengths, per kind and on the
file figures.

    python -m benchmarks.files_tune --data-dir DIR [--questions benchmarks/questions/dev]
        [--cache DIR/tune-cache] [--out docs/eval/files-to-read-tune.json]

As `benchmarks.structure_tune`: fast mode runs once per query with the repository-shape rules
off, its first 100 candidates kept (and cached); every grid point replays the rules on them and
is scored as `evaluate` scores. The held-apart fifth is never read.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
from pathlib import Path

from benchmarks.common import ROOT, setup_django
from benchmarks.structure_tune import cached_candidates, replay

GRID = {
    "broad_same_file": (0.1, 0.6, 1.0, 2.0, 3.0, 5.0),
    "file_mass": (0.0, 0.1, 0.25, 0.5),
    "opening": (0.0, 1.0, 2.0),
}
KEYS = ("ndcg@10", "file_recall@10", "files@10", "success@1")
KINDS = ("all", "architecture", "behaviour", "symbol")


def summary(metrics: list[dict], base: list[dict], kinds: list[str]) -> dict:
    """Per kind: each key's mean, and NDCG@10's and file recall's paired difference from
    `base` with its 95% interval."""
    from search.evaluation.stats import paired_difference

    out = {}
    for kind in KINDS:
        rows = [i for i, k in enumerate(kinds) if kind in ("all", k)]
        figures: dict = {
            key: round(sum(metrics[i][key] for i in rows) / len(rows), 4) for key in KEYS
        }
        for key in ("ndcg@10", "file_recall@10"):
            diff = paired_difference([metrics[i][key] for i in rows], [base[i][key] for i in rows])
            figures[f"{key}_vs_today"] = [round(diff[k], 4) for k in ("difference", "low", "high")]
        out[kind] = figures | {"n": len(rows)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", type=Path, default=ROOT / "benchmarks/questions/dev")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "docs/eval/files-to-read-tune.json")
    args = parser.parse_args()
    setup_django(str(Path(args.data_dir).resolve()))
    from search.evaluation.datasets import load_dataset
    from search.ranking.structure import Strengths
    from search.retrieval import search_config

    dataset = load_dataset(args.questions, "questions", part="tune")
    rows = cached_candidates("questions (tune)", dataset, args.cache)
    kinds = [query.kind for query, _, _ in rows]
    today = Strengths(**search_config()["STRUCTURE"])
    # Today's strengths with the new rules off: the baseline every point is paired with.
    base_strengths = dataclasses.replace(today, broad_same_file=0.0, file_mass=0.0, opening=0.0)
    base = replay(rows, base_strengths)
    grid = []
    for values in itertools.product(*GRID.values()):
        chosen = dict(zip(GRID, values, strict=True))
        metrics = replay(rows, dataclasses.replace(base_strengths, **chosen))
        grid.append({"strengths": chosen, **summary(metrics, base, kinds)})
        print(
            chosen,
            " | ".join(
                f"{kind} {grid[-1][kind]['ndcg@10']:.3f} {grid[-1][kind]['ndcg@10_vs_today']} "
                f"fr {grid[-1][kind]['file_recall@10']:.3f}"
                for kind in ("architecture", "behaviour")
            ),
            flush=True,
        )
    grid.sort(key=lambda p: -p["all"]["ndcg@10"])
    report = {
        "command": "python -m benchmarks.files_tune",
        "today": dataclasses.asdict(base_strengths),
        "n_queries": len(rows),
        "today_figures": summary(base, base, kinds),
        "grid": grid,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
