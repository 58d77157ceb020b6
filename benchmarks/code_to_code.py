"""Code to code on real near-duplicates: pip vendors copies of requests, urllib3, rich and others
at older versions than the installed ones, so each vendored function has a counterpart that
drifted across versions. Scripted copies (every local renamed, independent statements swapped)
of installed functions are pasted as snippets. Success@1 and MRR@10 of BM25 alone, the code
vector alone and `search.similar`'s weighted similarities, paired, with intervals; the weights
are chosen on a tuning half of the queries and reported on the other half; then latency.

    python -m benchmarks.code_to_code [--distractors django] [--out docs/eval/code-to-code.json]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.code_copies import renamed, reordered
from benchmarks.common import ROOT, machine_line, package_dir, setup_django

# Vendored by pip and installed in their own right (pyparsing is a train package: left out,
# since the weights are chosen here).
VENDORED = (
    "requests",
    "urllib3",
    "rich",
    "packaging",
    "pygments",
    "idna",
    "platformdirs",
    "tomli",
    "certifi",
    "distro",
    "pyproject_hooks",
    "tenacity",
)
MIN_LINES = 4  # a two-line getter has many twins that are equally right
GRID = (0.0, 0.25, 0.5, 1.0)


@dataclass
class Query:
    id: str
    kind: str  # "vendored", "renamed", "reordered"
    relevant: set[int]  # unit ids
    unit_id: int | None = None  # an indexed unit (left out of its own results)
    code: str = ""  # a pasted snippet
    candidates: list = field(default_factory=list)


def build_tree(tree: Path, distractors: list[str]) -> None:
    if tree.exists():
        shutil.rmtree(tree)
    vendor = package_dir("pip") / "_vendor"
    for name in VENDORED:
        shutil.copytree(vendor / name, tree / "vendored" / name)
        shutil.copytree(package_dir(name), tree / "installed" / name)
    for name in distractors:
        shutil.copytree(package_dir(name), tree / "other" / name)
    for cache in tree.rglob("__pycache__"):
        shutil.rmtree(cache)


def _package_and_rest(path: str) -> tuple[str, str, str]:
    side, package, rest = path.split("/", 2)
    return side, package, rest


def make_queries(repository, *, per_kind: int, seed: int) -> list[Query]:
    from indexing.models import CodeUnit
    from indexing.selectors import active_units

    functions = active_units(repository=repository).filter(
        kind__in=(CodeUnit.Kind.FUNCTION, CodeUnit.Kind.METHOD)
    )
    by_key: dict[tuple[str, str, str, str], list[CodeUnit]] = {}
    by_name: dict[tuple[str, str, str], list[CodeUnit]] = {}
    for unit in functions.only("pk", "path", "qualname", "code", "start_line", "end_line"):
        side, package, rest = _package_and_rest(unit.path)
        if side == "other":
            continue
        by_key.setdefault((side, package, rest, unit.qualname), []).append(unit)
        by_name.setdefault((side, package, unit.qualname), []).append(unit)

    def counterpart(unit: CodeUnit, side: str) -> CodeUnit | None:
        _, package, rest = _package_and_rest(unit.path)
        same = by_key.get((side, package, rest, unit.qualname), [])
        if len(same) != 1:  # moved across versions: the only one of that name in the package
            same = by_name.get((side, package, unit.qualname), [])
        return same[0] if len(same) == 1 else None

    def long_enough(unit: CodeUnit) -> bool:
        return unit.end_line - unit.start_line + 1 >= MIN_LINES

    rng = random.Random(seed)
    vendored, pasted = [], []
    for (side, _, _, _), units in sorted(by_key.items()):
        if len(units) != 1 or not long_enough(units[0]):
            continue
        unit = units[0]
        if side == "vendored" and (other := counterpart(unit, "installed")) is not None:
            vendored.append(
                Query(f"vendored:{unit.path}:{unit.qualname}", "vendored", {other.pk}, unit.pk)
            )
        if side == "installed":
            pasted.append(unit)
    queries = rng.sample(vendored, min(per_kind, len(vendored)))
    rng.shuffle(pasted)
    for kind, copy in (("renamed", renamed), ("reordered", reordered)):
        made = 0
        for unit in pasted:
            if made == per_kind:
                break
            code = copy(unit.code)
            if code is None:
                continue
            relevant = {unit.pk}
            if (twin := counterpart(unit, "vendored")) is not None:
                relevant.add(twin.pk)  # the vendored copy does the same thing too
            queries.append(Query(f"{kind}:{unit.path}:{unit.qualname}", kind, relevant, code=code))
            made += 1
    return queries


def tune_half(query: Query) -> bool:
    return int(hashlib.sha256(query.id.encode()).hexdigest(), 16) % 2 == 0


def rank_of(ordered_ids: list[int], relevant: set[int]) -> float:
    for rank, unit_id in enumerate(ordered_ids[:10], start=1):
        if unit_id in relevant:
            return float(rank)
    return float("inf")


DEPTHS = (20, 30, 50)  # candidates from each list; the index answers 50, shallower is a cut


def ordering(query: Query, config: str | dict[str, float], depth: int = 50) -> list[int]:
    from search.similar import order

    found = [c for c in query.candidates if min(c.found_by.values()) <= depth]
    if config == "bm25":
        ranked = sorted(
            (c for c in found if "bm25" in c.found_by), key=lambda c: c.found_by["bm25"]
        )
        return [c.unit.pk for c in ranked]
    if config == "vector":
        ranked = sorted(
            (c for c in found if "vector" in c.found_by), key=lambda c: c.found_by["vector"]
        )
        return [c.unit.pk for c in ranked]
    return [c.unit.pk for c, _ in order(found, config)]


def figures(ranks: list[float]) -> dict[str, np.ndarray]:
    r = np.asarray(ranks)
    return {
        "success_at_1": (r == 1).astype(float),
        "mrr_at_10": np.where(np.isfinite(r), 1 / r, 0.0),
    }


def evaluate(
    queries: list[Query], configs: dict[str, object], depth: int = 50
) -> dict[str, dict[str, np.ndarray]]:
    return {
        name: figures([rank_of(ordering(q, config, depth), q.relevant) for q in queries])
        for name, config in configs.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "benchmarks" / "code-to-code")
    parser.add_argument("--distractors", nargs="*", default=["django"])
    parser.add_argument("--per-kind", type=int, default=300)
    parser.add_argument("--latency-queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "eval" / "code-to-code.json")
    args = parser.parse_args(argv)
    tree = args.work / "tree"
    data = args.work / "data"
    fresh = not (data / "db.sqlite3").exists()
    if fresh:
        build_tree(tree, args.distractors)
    setup_django(str(data))
    from indexing.embedding import get_embedder
    from indexing.models import IndexRun, Repository
    from indexing.selectors import active_units
    from indexing.services import index_run_execute, index_run_start, repository_create
    from search.evaluation.stats import bootstrap_ci, paired_difference
    from search.ranking.likeness import code_shape, code_words
    from search.similar import CodeQuery, candidates, similar_code

    repository = Repository.objects.filter(name="vendored-copies").first()
    if repository is None:
        repository = repository_create(name="vendored-copies", source=str(tree), is_public=False)
        start = time.perf_counter()
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        assert run.status == IndexRun.Status.SUCCEEDED, run.error
        print(f"indexed {run.units_total} units in {time.perf_counter() - start:.0f} s")
        repository.refresh_from_db()
    units = active_units(repository=repository)
    queries = make_queries(repository, per_kind=args.per_kind, seed=args.seed)
    by_pk = {u.pk: u for u in units.filter(pk__in=[q.unit_id for q in queries if q.unit_id])}

    def query_of(query: Query, edit: str = "") -> CodeQuery:
        """The query as search takes it; `edit` makes a pasted snippet new to every cache."""
        if query.unit_id:
            return CodeQuery(by_pk[query.unit_id].code, by_pk[query.unit_id])
        return CodeQuery(f"{query.code}\n# {edit}\n" if edit else query.code)

    for query in queries:
        code_query = query_of(query)
        # As deep as the deepest setting measured; shallower ones are cuts of these lists.
        query.candidates, _ = candidates(repository=repository, query=code_query, depth=DEPTHS[-1])
    tune = [q for q in queries if tune_half(q)]
    test = [q for q in queries if not tune_half(q)]

    grid = {
        f"vector={v} words={w} shape={s}": {"vector": v, "words": w, "shape": s}
        for v, w, s in itertools.product((0.0, 1.0), GRID, GRID)
        if v or w or s
    }
    tuned = evaluate(tune, grid)
    best = max(grid, key=lambda n: (tuned[n]["mrr_at_10"].mean(), tuned[n]["success_at_1"].mean()))
    print("chosen on the tuning half:", best)
    configs = {
        "bm25": "bm25",
        "vector": "vector",
        "words alone": {"words": 1.0},
        "shape alone": {"shape": 1.0},
        "vector+words": {"vector": 1.0, "words": grid[best]["words"] or 0.5},
        "vector+shape": {"vector": 1.0, "shape": grid[best]["shape"] or 0.5},
        "chosen": grid[best],
    }
    quality = {}
    for part, part_queries in (("test", test), ("tune", tune)):
        scored = evaluate(part_queries, configs)
        quality[part] = {"queries": len(part_queries)}
        for metric in ("success_at_1", "mrr_at_10"):
            quality[part][metric] = {
                name: [round(x, 4) for x in bootstrap_ci(values[metric])]
                for name, values in scored.items()
            }
            quality[part][f"{metric}_chosen_minus"] = {
                base: paired_difference(scored["chosen"][metric], scored[base][metric])
                for base in ("bm25", "vector", "vector+words", "vector+shape")
            }
        for depth in DEPTHS[:-1]:
            shallow = evaluate(part_queries, {"chosen": grid[best]}, depth)["chosen"]
            quality[part][f"chosen_at_depth_{depth}_minus_50"] = {
                metric: paired_difference(shallow[metric], scored["chosen"][metric])
                for metric in ("success_at_1", "mrr_at_10")
            }
        quality[part]["success_at_1_by_kind"] = {
            kind: {
                name: round(
                    float(values["success_at_1"][[q.kind == kind for q in part_queries]].mean()), 4
                )
                for name, values in scored.items()
            }
            for kind in ("vendored", "renamed", "reordered")
        }

    from django.conf import settings

    latency = {}
    for depth, kind in itertools.product(DEPTHS, ("unit", "snippet")):
        settings.REPORIFT["SEARCH"]["SIMILAR"]["DEPTH"] = depth
        rng = random.Random(args.seed)  # the same queries at every depth
        pool = [q for q in queries if (q.unit_id is not None) == (kind == "unit")]
        sample = rng.sample(pool, min(args.latency_queries + 5, len(pool)))
        for query in sample[:5]:  # warm-up, not timed: the first calls load code and models
            similar_code(repository=repository, query=query_of(query, f"warm-up {depth}"), k=10)
        # Cold: no candidate's shape or words known yet, as in a process that just started.
        code_shape.cache_clear()
        code_words.cache_clear()
        times = []
        for query in sample[5:]:
            code_query = query_of(query, f"edited at depth {depth}")
            start = time.perf_counter()
            similar_code(repository=repository, query=code_query, k=10)
            times.append((time.perf_counter() - start) * 1000)
        latency[f"{kind} depth {depth}"] = {
            "queries": len(times),
            "p50_ms": round(float(np.percentile(times, 50)), 1),
            "p95_ms": round(float(np.percentile(times, 95)), 1),
        }
    report = {
        "command": "python -m benchmarks.code_to_code " + " ".join(argv or []),
        "machine": machine_line(),
        "embedder": get_embedder().model_id,
        "units": units.count(),
        "packages": list(VENDORED),
        "distractors": args.distractors,
        "queries": {
            kind: sum(q.kind == kind for q in queries)
            for kind in ("vendored", "renamed", "reordered")
        },
        "grid_on_tune": {name: round(float(v["mrr_at_10"].mean()), 4) for name, v in tuned.items()},
        "chosen": grid[best],
        "quality": quality,
        "latency": latency,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "grid_on_tune"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
