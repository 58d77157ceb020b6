"""Choose the shape rules' strengths (`REPORIFT["SEARCH"]["STRUCTURE"]`) by replaying them over
fast mode's candidates, judged by the deciding file figure.

    REPORIFT_DATA_DIR=DIR python -m benchmarks.shape_replay cache --set DIR --cache FILE
        [--part tune] [--phase 1]
    python -m benchmarks.shape_replay grid --cache FILE [FILE ...] --out REPORT
        [--base JSON] [--point NAME=JSON ...] [--base-cache FILE ...]

`cache` runs fast mode once per question with the shape rules off and keeps its first 100
candidates with their scores, and each repository's path words (`FileMap.path_words`): the rules
are a pure function of those, so each point of `grid` is replayed on them and scored as
`evaluate` scores (`search.evaluation.runner.judge`; first-file NDCG@10, the mean of
per-repository means, and the span NDCG@10 beside), each point paired against the first
(`--base`: the strengths the baseline changes from the shipped ones). A point names the
strengths it changes from the shipped ones (JSON); `"docs": "old"` replays the broader words that
used to mark a question about docs and setup (`docs_questions.mentions_setup`). The held-apart fifth
is never read unless asked for. `--base-cache` (one per `--cache`, in the same order: the same
questions cached with another ranker, `REPORIFT_RANKER`) replays the baseline on those
candidates instead, so that a refitted ranker with its strengths is paired against the shipped
one with its own.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shlex
import sys
import time
from pathlib import Path

from benchmarks.common import setup_django

DEPTH = 100  # the API's largest k: the rules lift within these


def cache(args: argparse.Namespace) -> None:
    # The data dir that holds the set's indexes (made once, reused by every later run).
    setup_django(os.environ["REPORIFT_DATA_DIR"])
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.file_map import file_map
    from search.services import FAST_STAGES, search

    dataset = load_dataset(str(args.set), "questions", part=args.part)
    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    stages = tuple(s for s in FAST_STAGES if s != "structure")
    rows = []
    for query in dataset.queries:
        response = search(
            repository=repositories[query.corpus],
            query=query.query,
            k=DEPTH,
            stages=stages,
            phase=args.phase,
        )
        ranked = [(r.unit, r.score) for r in response.results]
        rows.append((query, ranked, file_words(repositories[query.corpus], query.query, ranked)))
    paths = {
        key: file_map(repository.active_run).path_words for key, repository in repositories.items()
    }
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    args.cache.write_bytes(pickle.dumps({"set": str(args.set), "rows": rows, "paths": paths}))
    print(f"{len(rows)} questions cached in {args.cache}")


def file_words(repository, text: str, ranked) -> dict[str, float]:
    """Per candidate file, the BM25 scores of all its units added up, as search gives them to
    `lexical_file_mass`."""
    from indexing.lexical import lexical_index_for_run
    from search.file_map import file_map

    run = repository.active_run
    scores = lexical_index_for_run(run).scores(text)
    return file_map(run).added_up(scores, {unit.path for unit, _ in ranked})


class _Result:
    """What `judge` reads of a search result."""

    def __init__(self, unit, score: float) -> None:
        self.unit, self.score, self.streams = unit, score, {}


def replay(cached: dict, strengths, *, old_docs: bool = False) -> dict:
    """A report's `per_query` (the deciding and the span figure) for `strengths`, and the mean
    time the shape rules took per question (`shape_ms`)."""
    from indexing.text_units import is_documentation_page
    from search.evaluation.metrics import first_file_ndcg, query_metrics
    from search.evaluation.runner import defines_first, judge
    from search.ranking import structure
    from search.ranking.docs_questions import mentions_setup
    from search.ranking.paths import PathWords

    if old_docs:
        structure.asks_about_docs, kept = mentions_setup, structure.asks_about_docs
        structure.query_shape.cache_clear()
    # Made afresh from the counts: a cache keeps them as the version that wrote it made them.
    words = {key: PathWords(kept.files, kept.frequency) for key, kept in cached["paths"].items()}
    try:
        per_query, spent = [], 0.0
        for query, ranked, *extra in cached["rows"]:
            paths = words.get(query.corpus)
            mass = extra[0] if extra else None
            started = time.perf_counter()
            shaped = structure.shaped_order(
                query.query, ranked, strengths, paths=paths, lexical_mass=mass
            )
            spent += time.perf_counter() - started
            results = [_Result(unit, score) for unit, score in shaped[:10]]
            rows, relevances, _ = judge(results, query.gold, snippets=False)
            gold_files = [(g.path, g.primary) for g in query.gold]
            span = query_metrics(
                relevances,
                [g.relevance for g in query.gold],
                k=10,
                primary=[r["covers_primary"] for r in rows],
            )
            metrics = {
                "first_file_ndcg@10": first_file_ndcg([r["path"] for r in rows], gold_files),
                "ndcg@10": span["ndcg@10"],
            }
            entry = {"id": query.query_id, "corpus": query.corpus, "metrics": metrics}
            # A page of prose first where the answer is code: what the page step is for.
            entry["page_first"] = bool(
                results
                and is_documentation_page(results[0].unit.path)
                and not any(is_documentation_page(g.path) for g in query.gold)
            )
            entry |= {"kind": query.kind} if query.kind else {}
            if query.kind == "symbol":
                entry["definition_first"] = defines_first(query.query, results)
            entry |= {"language": query.language} if query.language else {}
            per_query.append(entry)
        pages = sum(entry["page_first"] for entry in per_query)
        return {
            "per_query": per_query,
            "shape_ms": 1000 * spent / max(len(per_query), 1),
            "page_first": pages,
        }
    finally:
        if old_docs:
            structure.asks_about_docs = kept
            structure.query_shape.cache_clear()


def grid(args: argparse.Namespace) -> None:
    # Settings only: the candidates are read from the cache, never from a database.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    import django

    django.setup()
    from django.conf import settings

    from benchmarks.questions import compare
    from search.ranking.structure import Strengths

    shipped = settings.REPORIFT["SEARCH"]["STRUCTURE"]
    # Every point is paired against the first: `--base`, the strengths it changes from the
    # shipped ones (the shipped ones when not given).
    points = {"base": json.loads(args.base or "{}"), "shipped": {}}
    for text in args.point or []:
        name, _, changes = text.partition("=")
        points[name] = json.loads(changes)
    command = shlex.join(["python", "-m", "benchmarks.shape_replay", *sys.argv[1:]])
    report: dict = {"command": command, "sets": {}}
    if args.base_cache and len(args.base_cache) != len(args.cache):
        raise SystemExit("--base-cache names one cache per --cache")
    for number, path in enumerate(args.cache):
        cached = pickle.loads(path.read_bytes())
        base_cached = (
            pickle.loads(args.base_cache[number].read_bytes()) if args.base_cache else None
        )
        base = None
        out = {}
        for name, changes in points.items():
            changes = dict(changes)
            old_docs = changes.pop("docs", "") == "old"
            candidates = base_cached if base is None and base_cached else cached
            per_query = replay(candidates, Strengths(**(shipped | changes)), old_docs=old_docs)
            base = base or per_query
            compared = compare(base, per_query)
            out[name] = {
                "changes": changes | ({"docs": "old"} if old_docs else {}),
                "shape_ms_per_question": round(per_query["shape_ms"], 3),
                # Questions answered by code whose first result is a page of prose.
                "page_first": per_query["page_first"],
                "vs_first_point": {g: row["per_repository"] for g, row in compared.items()},
            }
            figure = compared["all"]["per_repository"]["first_file_ndcg@10"]
            print(
                f"{path.stem:24} {name:40} {figure['new']:.4f} {figure['difference']:+.4f} "
                f"[{figure['ci95'][0]:+.4f}, {figure['ci95'][1]:+.4f}] "
                f"{per_query['shape_ms']:.2f} ms, a page first {per_query['page_first']}",
                flush=True,
            )
        report["sets"][path.stem] = {"set": cached["set"], "n": len(cached["rows"]), **out}
        if base_cached:
            report["sets"][path.stem]["base_cache"] = str(args.base_cache[number])
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cache_cmd = commands.add_parser("cache")
    cache_cmd.add_argument("--set", type=Path, required=True)
    cache_cmd.add_argument("--cache", type=Path, required=True)
    cache_cmd.add_argument("--part", choices=("tune", "final", "all"), default="tune")
    cache_cmd.add_argument("--phase", type=int, choices=(1, 2), default=1)
    grid_cmd = commands.add_parser("grid")
    grid_cmd.add_argument("--cache", type=Path, nargs="+", required=True)
    grid_cmd.add_argument("--out", type=Path)
    grid_cmd.add_argument("--base", help="JSON of the strengths the baseline changes")
    grid_cmd.add_argument("--point", action="append", help="NAME=JSON of changed strengths")
    grid_cmd.add_argument(
        "--base-cache", type=Path, nargs="+", help="the baseline's candidates, one per --cache"
    )
    args = parser.parse_args()
    (cache if args.command == "cache" else grid)(args)


if __name__ == "__main__":
    main()
