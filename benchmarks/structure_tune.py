"""Choose the strengths of the repository-shape rules (`REPORIFT["SEARCH"]["STRUCTURE"]`,
`search.ranking.structure`) on the developer questions' tuning part, and see what each choice
does to the package benchmark's dev rows and CoSQA dev.

    python -m benchmarks.structure_tune --data-dir DIR
        [--questions benchmarks/questions/dev] [--packages var/benchmarks/packages]
        [--exclude-packages matplotlib,pip,crewai,celery,chromadb] [--cosqa PATH]
        [--out docs/eval/structure-tune.json]

Fast mode runs once per query with the rules off, its first 100 candidates kept; the rules are a
pure function of that ordered list, so each grid point is replayed on it and scored as `evaluate`
scores (`search.evaluation.runner.judge`). The held-apart fifth of the questions is never read.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
from pathlib import Path

from benchmarks.common import ROOT, setup_django, without_packages

# The first grid (docs/eval/structure-tune-grid1.json) also tried "mentioned" at 0.5 and 1 and
# "defines" at 1 and 2: neither helped anywhere, so this one holds the rest.
GRID = {
    "defines": (0.0, 3.0, 5.0),
    "mentioned": (0.0,),
    "file_topic": (0.0, 0.25, 0.5),
    "same_file": (0.0, 0.1, 0.2, 0.3),
    "module": (0.0, 1.0, 2.0),
}
KEYS = ("ndcg@10", "success@1", "mrr")
DEPTH = 100  # the API's largest k


def candidates(dataset, repositories) -> list[tuple]:
    """Per query: the fast-mode order with the rules off, its first `DEPTH` candidates (the
    rules lift within them; search applies them to every candidate, so this is a lower
    bound, and explaining every candidate would cost the run ten times its time)."""
    from search.services import FAST_STAGES, search

    stages = tuple(s for s in FAST_STAGES if s != "structure")
    out = []
    for query in dataset.queries:
        response = search(
            repository=repositories[query.corpus], query=query.query, k=DEPTH, stages=stages
        )
        snippets = dataset.corpora[query.corpus].kind == "snippets"
        out.append((query, response.results, snippets))
    return out


def cached_candidates(name: str, dataset, cache: Path | None) -> list[tuple]:
    """`candidates` of a set, kept under `cache` (when given) for the next grid."""
    from search.evaluation.corpora import prepare_corpus

    cached = cache / f"{name}.pickle" if cache else None
    if cached and cached.exists():
        return pickle.loads(cached.read_bytes())
    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    rows = candidates(dataset, repositories)
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps(rows))
    return rows


def replay(rows: list[tuple], strengths, adjust=None) -> list[dict[str, float]]:
    """Each query's metrics with the rules at `strengths` applied to its cached candidates;
    `adjust(query, results)`, when given, adds an amount to each candidate's score first (a
    rule being tried)."""
    from search.evaluation.metrics import file_metrics, query_metrics
    from search.evaluation.runner import judge
    from search.ranking.structure import shaped_order

    metrics = []
    for query, results, snippets in rows:
        by_unit = {id(r.unit): r for r in results}
        added = adjust(query, results) if adjust else [0.0] * len(results)
        scored = [(r.unit, r.score + extra) for r, extra in zip(results, added, strict=True)]
        shaped = shaped_order(query.query, scored, strengths)
        ordered = [by_unit[id(unit)] for unit, _ in shaped]
        judged, relevances, _ = judge(ordered, query.gold, snippets=snippets)
        judged, relevances = judged[:10], relevances[:10]
        metrics.append(
            query_metrics(
                relevances,
                [g.relevance for g in query.gold],
                primary=[row["covers_primary"] for row in judged],
            )
            | file_metrics(
                [row["path"] for row in judged], [(g.path, g.primary) for g in query.gold]
            )
        )
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", type=Path, default=ROOT / "benchmarks/questions/dev")
    parser.add_argument("--packages", type=Path)
    parser.add_argument("--exclude-packages", default="matplotlib,pip,crewai,celery,chromadb")
    parser.add_argument("--cosqa", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "docs/eval/structure-tune.json")
    parser.add_argument(
        "--cache", type=Path, help="keep each set's candidates here, to replay another grid"
    )
    args = parser.parse_args()
    setup_django(str(Path(args.data_dir).resolve()))
    from search.evaluation.datasets import load_dataset
    from search.evaluation.stats import paired_difference
    from search.ranking.structure import Strengths

    sets = {"questions (tune)": load_dataset(args.questions, "questions", part="tune")}
    if args.packages:
        excluded = [p for p in args.exclude_packages.split(",") if p]
        sets["dev packages"] = without_packages(
            load_dataset(args.packages / "dev.jsonl", "repo"), excluded
        )
    if args.cosqa:
        sets["CoSQA dev"] = load_dataset(args.cosqa, "cosqa")
    rows = {name: cached_candidates(name, dataset, args.cache) for name, dataset in sets.items()}
    off = Strengths(defines=0, mentioned=0, file_topic=0, same_file=0)
    baseline = {name: replay(r, off) for name, r in rows.items()}
    grid = []
    for values in itertools.product(*GRID.values()):
        strengths = Strengths(**dict(zip(GRID, values, strict=True)))
        point: dict = {"strengths": dict(zip(GRID, values, strict=True))}
        for name, r in rows.items():
            metrics = replay(r, strengths) if any(values) else baseline[name]
            point[name] = {k: round(sum(m[k] for m in metrics) / len(metrics), 4) for k in KEYS}
            diff = paired_difference(
                [m["ndcg@10"] for m in metrics], [m["ndcg@10"] for m in baseline[name]]
            )
            point[name]["ndcg@10_vs_off"] = [
                round(diff[k], 4) for k in ("difference", "low", "high")
            ]
        grid.append(point)
    first = "questions (tune)"
    grid.sort(key=lambda p: -p[first]["ndcg@10"])
    report = {
        "command": "python -m benchmarks.structure_tune",
        "sets": {name: len(r) for name, r in rows.items()},
        "grid": grid,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    for point in grid[:15]:
        print(
            point["strengths"],
            " | ".join(
                f"{name}: {point[name]['ndcg@10']:.3f} {point[name]['ndcg@10_vs_off']}"
                for name in rows
            ),
        )


if __name__ == "__main__":
    main()
