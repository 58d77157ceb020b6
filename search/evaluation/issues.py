"""`evaluate --format issues`: issue text, its repository at the base commit, the files the fix
changed; does search find those files?

Rows (JSONL, one issue a line; benchmarks/questions/issues/README.md has the format): `id`,
`repo` (`owner/name`), `base_commit`, `language`, `issue`, `gold_files`. Each repository is
materialised at each base commit from a bare git mirror (`<mirrors>/<owner>+<name>/repo`, as
`benchmarks.corpora` reads them) and indexed as one repository re-indexed commit after commit,
so unchanged files are carried over. Indexing stops after phase 1 unless the caller asks
otherwise (phase 2 of a few hundred trees takes hours on two cores).

Systems, on the same trees and the same issues:
- `locate`: `search.locate.locate_files`, the product's issue reading;
- `search`: fast mode's unit search of the issue as a query (cut to the query limit, as it
  was before issues were read), its results gathered by file;
- `bm25-files`: BM25 over whole files (every indexed file's text), the classic baseline;
- `embedder`: the query's vector against the units' code vectors alone (S1), by file.

Per row: the rank of the first gold file, Acc@k (a gold file among the first k: every fix of
SWE-bench Lite touches one file), All@k (every gold file among the first k) and MRR.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from django.conf import settings

from indexing.lexical import bm25_index, tokenize
from indexing.models import FileVersion, IndexRun, Repository
from indexing.selectors import active_generation
from indexing.services import index_run_execute, index_run_start, repository_create
from search.evaluation.dataset_types import DatasetError
from search.evaluation.issue_rows import IssueRow, commit_time, file_metrics, write_tree
from search.evaluation.stats import bootstrap_ci, paired_difference
from search.issue_text import read_issue
from search.locate import LOCATE_WEIGHTS, gather_evidence, is_about_docs, is_about_tests
from search.locate import rank_files as fused_ranking
from search.retrieval import search_config
from search.services import search

SYSTEMS = ("locate", "search", "bm25-files", "embedder")
DEPTH = 50  # files each system ranks per issue


def _indexed(
    repo: str, commit: str, mirrors: Path, trees: Path, at: dict[str, str]
) -> tuple[Repository, float]:
    """The project's repository indexed at `commit`, and the seconds indexing took now. One
    repository per project, moved from commit to commit (`at`: where each one is now): a run
    parses only the files that changed since the commit before and reuses the rest, where a
    repository per commit parsed every file of every tree again (281 trees: an hour and a half
    on two cores against minutes)."""
    name = f"issues-{repo.replace('/', '-')}"
    repository = Repository.objects.filter(name=name).first()
    if repository is not None and repository.active_run_id and at.get(name) == commit:
        return repository, 0.0
    tree = trees / name
    write_tree(repo, commit, mirrors, tree)
    started = time.perf_counter()
    if repository is None:
        repository = repository_create(
            name=name, source=str(tree), source_kind=Repository.SourceKind.LOCAL, is_public=False
        )
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    seconds = time.perf_counter() - started
    shutil.rmtree(tree, ignore_errors=True)  # searches read the index, never the tree
    if run.status != IndexRun.Status.SUCCEEDED:
        raise DatasetError(f"indexing {repo}@{commit[:12]} failed: {run.error}")
    at[name] = commit
    repository.refresh_from_db()
    return repository, seconds


def _file_bm25(repository: Repository):
    """BM25 over the whole text of every file of the active generation."""
    generation = active_generation(repository=repository)
    versions = list(
        FileVersion.objects.filter(runs=generation).only("path", "content").order_by("path")
    )
    paths = [v.path for v in versions]
    index = bm25_index(range(len(paths)), (tokenize(v.text() or "") for v in versions))
    return paths, index


def _by_file(paths: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(paths))[:DEPTH]


def rank_files(system: str, repository: Repository, row: IssueRow, *, phase, cache) -> list[str]:
    if system == "locate":
        found = gather_evidence(repository=repository, issue=row.issue, phase=phase)
        # Kept in the report: the fusion's weights are chosen on these ranks.
        cache.setdefault("evidence", {})[row.id] = found.ranks(depth=DEPTH)
        ranked = fused_ranking(
            found.ranks(depth=len(found.files.paths)),
            LOCATE_WEIGHTS,
            about_tests=is_about_tests(found.clues),
            about_docs=is_about_docs(found.clues),
        )
        return [path for path, _ in ranked[:DEPTH]]
    limit = search_config()["MAX_QUERY_CHARS"]
    query = " ".join(row.issue.split())[:limit]
    if system == "search":
        response = search(repository=repository, query=query, k=100, phase=phase)
        return _by_file(r.unit.path for r in response.results)
    if system == "embedder":
        response = search(repository=repository, query=query, k=100, stages=("S1",), phase=phase)
        return _by_file(r.unit.path for r in response.results)
    if system == "bm25-files":
        if "bm25" not in cache:
            cache["bm25"] = _file_bm25(repository)
        paths, index = cache["bm25"]
        return [paths[i] for i, _ in index.search(row.issue, n=DEPTH)]
    raise ValueError(f"unknown system {system!r}")


def evaluate_issues(
    rows: list[IssueRow],
    *,
    mirrors: Path,
    systems: Iterable[str] = SYSTEMS,
    phase: int | None = 1,
    progress: Callable[[str], None] = print,
    checkpoint: Path | None = None,
) -> dict:
    """Every row through every system. With `checkpoint`, each row's entry is appended there as
    it is scored, and a row already there with every system is not run again (an evaluation
    of hundreds of trees can be stopped and resumed)."""
    systems = list(systems)
    trees = Path(settings.DATA_DIR) / "eval" / "issues"
    done = _done_rows(checkpoint, systems)
    groups: dict[tuple[str, str], list[IssueRow]] = defaultdict(list)
    for row in rows:
        groups[(row.repo, row.base_commit)].append(row)
    per_query: dict[str, dict] = {i: e for i, e in done.items() if i in {r.id for r in rows}}
    latency: dict[str, list[float]] = defaultdict(list)
    index_seconds = 0.0
    at: dict[str, str] = {}
    # Each project's commits in the order they were made: the next tree differs least.
    order = sorted(groups, key=lambda key: (key[0], commit_time(key[0], key[1], mirrors), key[1]))
    for number, (repo, commit) in enumerate(order, start=1):
        group = groups[(repo, commit)]
        todo = [row for row in group if row.id not in per_query]
        if not todo:
            continue
        progress(f"[{number}/{len(groups)}] {repo}@{commit[:12]}: {len(todo)} issues")
        repository, seconds = _indexed(repo, commit, mirrors, trees, at)
        index_seconds += seconds
        cache: dict = {}
        for row in todo:
            entry = {
                "id": row.id,
                "repo": row.repo,
                "language": row.language,
                "gold": list(row.gold_files),
                "issue_chars": len(row.issue),
                "systems": {},
            }
            for system in systems:
                started = time.perf_counter()
                ranked = rank_files(system, repository, row, phase=phase, cache=cache)
                elapsed = (time.perf_counter() - started) * 1000
                latency[system].append(elapsed)
                entry["systems"][system] = {
                    "metrics": file_metrics(ranked, row.gold_files),
                    "files": ranked[:10],
                    "ms": round(elapsed, 1),
                }
            if row.id in cache.get("evidence", {}):
                entry["evidence"] = cache["evidence"][row.id]
                clues = read_issue(row.issue)
                entry["about_tests"] = is_about_tests(clues)
                entry["about_docs"] = is_about_docs(clues)
            per_query[row.id] = entry
            if checkpoint is not None:
                with checkpoint.open("a") as out:
                    out.write(json.dumps(entry) + "\n")
    for entry in per_query.values():
        for system in systems:
            if entry["id"] in done:
                latency[system].append(entry["systems"][system].get("ms", 0.0))
    return _report(rows, per_query, systems, latency, index_seconds, phase)


def _done_rows(checkpoint: Path | None, systems: list[str]) -> dict[str, dict]:
    if checkpoint is None or not checkpoint.exists():
        return {}
    done = {}
    for line in checkpoint.read_text().splitlines():
        entry = json.loads(line)
        if set(systems) <= set(entry["systems"]):
            done[entry["id"]] = entry
    return done


def _report(rows, per_query, systems, latency, index_seconds, phase) -> dict:
    ids = [row.id for row in rows]
    keys = list(per_query[ids[0]]["systems"][systems[0]]["metrics"])

    def values(system: str, key: str, subset: list[str]) -> list[float]:
        return [per_query[i]["systems"][system]["metrics"][key] for i in subset]

    def summary(subset: list[str]) -> dict:
        out: dict = {"n": len(subset)}
        for system in systems:
            figures = {}
            for key in keys:
                mean, low, high = bootstrap_ci(values(system, key, subset))
                figures[key] = {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}
            out[system] = figures
        if "locate" in systems:
            out["locate_minus"] = {
                other: {
                    key: _paired(values("locate", key, subset), values(other, key, subset))
                    for key in ("acc@1", "acc@5", "mrr")
                }
                for other in systems
                if other != "locate"
            }
        return out

    by_language: dict[str, list[str]] = defaultdict(list)
    by_repo: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_language[row.language].append(row.id)
        by_repo[row.repo].append(row.id)
    return {
        "format": "issues",
        "phase": phase,
        "n_queries": len(ids),
        "systems": systems,
        "overall": summary(ids),
        "by_language": {lang: summary(subset) for lang, subset in sorted(by_language.items())},
        "by_repository": {
            repo: {s: round(float(np.mean(values(s, "acc@5", subset))), 4) for s in systems}
            | {"n": len(subset)}
            for repo, subset in sorted(by_repo.items())
        },
        "latency_ms": {
            s: {
                "p50": round(float(np.percentile(v, 50)), 1),
                "p95": round(float(np.percentile(v, 95)), 1),
            }
            for s, v in latency.items()
        },
        "index_seconds": round(index_seconds, 1),
        "per_query": [per_query[i] for i in ids],
        "digest": hashlib.sha256("\n".join(ids).encode()).hexdigest()[:12],
    }


def _paired(candidate: list[float], baseline: list[float]) -> dict:
    diff = paired_difference(candidate, baseline)
    return {
        "difference": round(diff["difference"], 4),
        "ci95": [round(diff["low"], 4), round(diff["high"], 4)],
        "significant": diff["significant"],
    }
