"""All repositories at once, judged: each question of a set asked over every repository of the
data dir (its own and the others), scored by the files of its own repository that the merged
list shows, for the search that ranks every repository and for the routed search that ranks
only those its one pass over all their vectors picks (`search.across_routing`), at several
counts and evidence depths; the question's own repository alone beside them.

    python -m benchmarks.across_quality --data-dir DIR --questions DIR [--part tune] \\
        [--counts 1 2 3] [--depths 3] [--words 0 4 16] [--leads 0 5] \\
        [--out docs/eval/across-quality.json]

Every repository is searched once per question and its results kept, so each configuration's
list is exactly what `search_across` returns with that setting (a routed search ranks its
chosen repositories as a search of each would, and merges them the same way). The data dir
must hold the set's corpora indexed already (`manage.py evaluate --format questions` with
REPORIFT_DATA_DIR set to it).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

from benchmarks.common import machine_line, setup_django
from benchmarks.query_speed import emit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--part", default="tune")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--depths", type=int, nargs="+", default=[3])
    parser.add_argument("--words", type=float, nargs="+", default=[0.0, 4.0, 16.0])
    parser.add_argument("--weights", type=float, nargs="+", default=[0.0, 6.0, 12.0])
    parser.add_argument("--limit", type=int, default=0, help="at most this many questions")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    os.environ.setdefault("REPORIFT_PHASE2_MAX_UNITS", "1")
    setup_django(args.data_dir)
    from indexing.models import Repository
    from search.across import merge
    from search.across_routing import route
    from search.answer import answer
    from search.evaluation.corpora import corpus_repository_name
    from search.evaluation.metrics import first_file_ndcg
    from search.evaluation.questions import load_questions
    from search.evaluation.stats import grouped_bootstrap_ci, paired_difference
    from search.results import SearchError
    from search.retrieval import search_config
    from search.warmup import warm_up

    dataset = load_questions(args.questions, part=args.part)
    names = {key: corpus_repository_name(c) for key, c in dataset.corpora.items()}
    by_name = {r.name: r for r in Repository.objects.filter(name__in=names.values())}
    missing = sorted(key for key, name in names.items() if name not in by_name)
    if missing:
        raise SystemExit(f"not indexed in {args.data_dir}: {', '.join(missing)}")
    repositories = [by_name[names[key]] for key in sorted(names)]
    warm_up()
    queries = dataset.queries[: args.limit or None]
    settings = [
        (c, d, w, e)
        for c in args.counts
        for d in args.depths
        for w in args.words
        for e in (args.weights if c > 1 else [0.0])
    ]
    across = search_config()["ACROSS"]
    default = (
        across["REPOSITORIES"],
        across["EVIDENCE_UNITS"],
        across["WORDS"],
        across["EVIDENCE_WEIGHT"] if across["REPOSITORIES"] > 1 else 0.0,
    )
    settings = [default, *(s for s in settings if s != default)]
    baseline = label(*default)
    configs = ["all", "own"] + [label(*s) for s in settings]
    scores: dict[str, list[float]] = {c: [] for c in configs}
    found_in: dict[str, list[float]] = {c: [] for c in configs if c not in ("all", "own")}
    groups, route_ms = [], []
    started = time.perf_counter()
    for number, query in enumerate(queries, start=1):
        own = names[query.corpus]
        gold = [(g.path, g.primary) for g in query.gold]
        results = {}
        for repository in repositories:
            try:
                results[repository.name] = answer(
                    repository=repository, query=query.query, k=10
                ).results
            except SearchError:
                results[repository.name] = []
        routed = route(repositories=repositories, query=query.query)
        route_ms.append(routed.ms)

        def score(chosen: list[tuple[str, float]], weight=0.0, results=results, own=own, gold=gold):
            merged = merge(
                [results[name] for name, _ in chosen],
                10,
                handicaps=[weight * shortfall for _, shortfall in chosen],
            )
            paths = [r.unit.path if r.repository == own else "\0" for r in merged]
            return first_file_ndcg(paths, gold)

        scores["all"].append(score([(name, 0.0) for name in results]))
        scores["own"].append(score([(own, 0.0)]))
        for count, depth, words, weight in settings:
            chosen = [(r.name, s) for r, s in routed.shortfalls(count, depth, words)]
            key = label(count, depth, words, weight)
            scores[key].append(score(chosen, weight))
            found_in[key].append(float(own in {name for name, _ in chosen}))
        groups.append(query.corpus)
        if number % 50 == 0:
            print(f"{number}/{len(queries)} {time.perf_counter() - started:.0f} s", flush=True)

    def figure(values: list[float]) -> dict:
        mean, low, high = grouped_bootstrap_ci(values, groups)
        return {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}

    def paired(a: list[float], b: list[float]) -> dict:
        d = paired_difference(a, b, groups=groups)
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in d.items()}

    report = {
        "what": "first_file_ndcg@10 per repository of each question's own repository's files in "
        "the list merged over every repository of the data dir: all ranked, its own alone, and "
        "routed (rC = C repositories ranked in full, dD = each repository's closeness the mean "
        "of its best D units' static cosines, wW = the weight of its words' CORI belief beside "
        "it, eE = the weight of each repository's shortfall of evidence against the likeliest "
        "one's in the merge); against_default: paired with the settings' configuration; "
        "found_in: the share of questions whose own repository the route picked; "
        "cross_validated: per count, the weight picked on one half of the "
        "corpora and judged on the other, five splits",
        "command": "python -m benchmarks.across_quality " + " ".join(argv or sys.argv[1:]),
        "machine": machine_line(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "questions": len(queries),
        "repositories": len(repositories),
        "units": sum(r.active_run.units_total for r in repositories),
        "route_ms_median": round(sorted(route_ms)[len(route_ms) // 2], 2) if route_ms else None,
        "file_ndcg": {c: figure(v) for c, v in scores.items()},
        "against_all": {c: paired(v, scores["all"]) for c, v in scores.items() if c != "all"},
        "default": baseline,
        "against_default": {
            c: paired(v, scores[baseline]) for c, v in scores.items() if c not in (baseline, "all")
        },
        "cross_validated": cross_validated(scores, baseline, groups, args.counts, paired),
        "found_in": {c: round(sum(v) / len(v), 4) for c, v in found_in.items() if v},
    }
    return emit(report, args.out)


def label(count: int, depth: int, words: float, weight: float) -> str:
    return f"r{count}d{depth}w{words:g}e{weight:g}"


def cross_validated(scores: dict, baseline: str, groups: list[str], counts, paired) -> dict:
    """Per count of ranked repositories: the weight (and words, depth) picked on one half of
    the corpora and scored on the other, both ways, for five random halvings; each split's
    paired difference against the settings' configuration."""
    corpora = sorted(set(groups))
    report = {}
    for count in counts:
        keys = [key for key in scores if key.startswith(f"r{count}d")]
        splits = []
        for seed in range(5):
            half = set(random.Random(seed).sample(corpora, len(corpora) // 2))
            mixed, picked = [0.0] * len(groups), []
            for side in (True, False):
                fit = [i for i, g in enumerate(groups) if (g in half) == side]
                best = max(keys, key=lambda k: sum(scores[k][i] for i in fit))
                picked.append(best)
                for i, g in enumerate(groups):
                    if (g in half) != side:
                        mixed[i] = scores[best][i]
            splits.append({"picked": picked, **paired(mixed, scores[baseline])})
        report[f"r{count}"] = splits
    return report


if __name__ == "__main__":
    raise SystemExit(main())
