"""Run a dataset through search and score it: the report of docs/ARCHITECTURE.md, plus
ablations with paired confidence intervals."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from indexing.models import Repository
from search.evaluation.breakdown import by_language
from search.evaluation.corpora import prepare_corpus, snippet_filename, snippet_id_from_path
from search.evaluation.datasets import EvalDataset, EvalQuery, GoldUnit
from search.evaluation.execution import ExecutionJudge, execution_judge
from search.evaluation.metrics import (
    CI_KEYS,
    FILE_KEYS,
    METRIC_KEYS,
    file_metrics,
    first_file_ndcg,
    kind_summary,
    query_metrics,
    report_figures,
)
from search.evaluation.repositories import repository_figures
from search.evaluation.stats import paired_difference
from search.ranking.structure import defines, query_shape
from search.results import SearchResult
from search.services import FAST_STAGES, FULL_STAGES, search
from search.warmup import warm_up


def judge(
    results: Sequence[SearchResult], gold: Sequence[GoldUnit], *, snippets: bool
) -> tuple[list[dict[str, Any]], list[float], list[str]]:
    """Ranked result rows, their relevances, and the streams that found a gold unit.

    Snippet corpora rank snippets: units of one snippet collapse to its first. In a repository a
    result counts when it is a gold unit or the class that encloses one (RepoRift's rule); each
    gold unit counts once."""
    rows, relevances, found_by = [], [], set()
    matched: set[int] = set()
    seen_paths: set[str] = set()
    for result in results:
        unit = result.unit
        path = snippet_id_from_path(unit.path) if snippets else unit.path
        if snippets:
            if path in seen_paths:
                continue
            seen_paths.add(path)
        relevance, primary = 0.0, False
        for index, g in enumerate(gold):
            if index in matched:
                continue
            if snippets:
                # Snippet files are named by a filesystem-safe form of the id (ids such as
                # "pkg/mod.py::func" come from label runs).
                hit = snippet_id_from_path(snippet_filename(g.path)) == path
            else:
                hit = g.covered_by(path=path, unit=unit)
            if hit:
                matched.add(index)
                relevance = g.relevance
                primary = g.primary
                found_by.update(result.streams)
                break
        rows.append(
            {
                "path": path,
                "qualname": unit.qualname,
                "kind": unit.kind,
                "score": round(result.score, 6),
                "streams": result.streams,
                "covers_primary": primary,
            }
        )
        relevances.append(relevance)
    return rows, relevances, sorted(found_by)


def evaluate(
    *,
    dataset: EvalDataset,
    k: int = 10,
    mode: str = "fast",
    stages: Sequence[str] | None = None,
    limit: int | None = None,
    progress: bool = True,
    repositories: dict[str, Repository] | None = None,
    phase: int | None = None,
    warm: bool = False,
) -> dict[str, Any]:
    """`warm`: each corpus's repository warmed up before its first question, as a server that
    holds it does when it starts (search.warmup), so that latencies are a warmed server's;
    without it they include reading units met for the first time."""
    repositories = repositories or {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    queries: list[EvalQuery] = dataset.queries[:limit] if limit else dataset.queries
    with execution_judge(any(q.test for q in queries)) as executions:
        report = _evaluate(
            dataset,
            queries,
            repositories,
            executions,
            k=k,
            mode=mode,
            stages=stages,
            progress=progress,
            phase=phase,
            warm=warm,
        )
    report["warmed"] = warm
    if executions is not None:
        # How the candidates' test runs ended (xCodeEval's rule): ran, passed, failed,
        # timed_out, stopped (another limit), skipped (a kind with nothing to import),
        # unavailable (the sandbox could not start).
        report["executions"] = dict(sorted(executions.tally.items()))
        # Each run's unit and how it ended (the last line of its error): why a right-looking
        # result did not pass, or why the sandbox could not start.
        report["execution_trail"] = executions.trail
    return report


def _evaluate(
    dataset: EvalDataset,
    queries: list[EvalQuery],
    repositories: dict[str, Repository],
    executions: ExecutionJudge | None,
    *,
    k: int,
    mode: str,
    stages: Sequence[str] | None,
    progress: bool,
    phase: int | None,
    warm: bool = False,
) -> dict[str, Any]:
    depth = max(k, 10)
    per_query, metrics, latencies = [], [], []
    warm_ups: dict[str, dict[str, Any]] = {}
    for query in tqdm(
        queries,
        desc=f"evaluate {mode} {','.join(stages or [])}".strip(),
        disable=not progress,
        unit="q",
    ):
        corpus = dataset.corpora[query.corpus]
        if warm and query.corpus not in warm_ups:
            done = warm_up(repositories=[repositories[query.corpus].pk])
            warm_ups[query.corpus] = {"complete": done.complete, "seconds": done.seconds}
        start = time.perf_counter()
        # Snippet corpora collapse units to snippets: ask for more units than snippets needed.
        response = search(
            repository=repositories[query.corpus],
            query=query.query,
            k=min(depth * (3 if corpus.kind == "snippets" else 1), 100),
            mode=mode,
            stages=tuple(stages) if stages else None,
            phase=phase,
        )
        latencies.append((time.perf_counter() - start) * 1000)
        rows, relevances, found_by = judge(
            response.results, query.gold, snippets=corpus.kind == "snippets"
        )
        rows, relevances = rows[:depth], relevances[:depth]
        gold_relevances = [g.relevance for g in query.gold]
        primary = [row["covers_primary"] for row in rows]
        if query.test and executions is not None:
            relevances = executed_relevances(
                executions, repositories[query.corpus], response.results[:depth], query.test
            )
            for row, passed in zip(rows, relevances, strict=False):
                row["test_passed"] = bool(passed)
            # Every passing result is a right answer; the ideal ranking has them all first.
            gold_relevances = [1.0] * max(1, int(sum(relevances)))
            primary = [bool(r) for r in relevances]
        paths, gold_files = [row["path"] for row in rows], [(g.path, g.primary) for g in query.gold]
        metrics.append(
            query_metrics(relevances, gold_relevances, k=k, primary=primary)
            | file_metrics(paths, gold_files)
            | {"first_file_ndcg@10": first_file_ndcg(paths, gold_files)}
        )
        # Every row by its id, so that two reports pair query by query (benchmarks.questions),
        # and its corpus, so that figures are averaged per repository.
        entry = {"id": query.query_id, "corpus": query.corpus}
        entry |= {"kind": query.kind} if query.kind else {}
        if query.language:
            entry["language"] = query.language
        if query.kind == "symbol":
            entry["definition_first"] = defines_first(query.query, response.results)
        per_query.append(
            entry
            | {
                "query": query.query,
                "gold": [g.as_json() for g in query.gold],
                "results": rows,
                "gold_found_by": found_by,
                "metrics": {key: metrics[-1][key] for key in (*CI_KEYS, *FILE_KEYS)},
                "mode_used": response.mode_used,
                "ordered_by": response.ordered_by,
                "timings_ms": response.timings_ms,
                "latency_ms": round(latencies[-1], 2),
            }
        )
    kinds = sorted({entry["kind"] for entry in per_query if "kind" in entry})
    by_kind = {kind: kind_summary(per_query, kind) for kind in kinds}
    languages = by_language(per_query)
    return {
        "dataset": dataset.name,
        "format": dataset.format,
        "mode": mode,
        "stages": list(stages) if stages else list(FULL_STAGES if mode == "full" else FAST_STAGES),
        "k": k,
        "n_queries": len(queries),
        "corpus_units": {key: r.active_run.units_total for key, r in repositories.items()},
        **report_figures(metrics, latencies, k=k),
        **({"by_kind": by_kind} if by_kind else {}),
        **({"by_language": languages} if languages else {}),
        "per_repository": repository_figures(per_query),
        # Each corpus's warm-up: one that failed or ran out of time says so (its queries'
        # latencies include what it did not do).
        **({"warm_ups": warm_ups} if warm else {}),
        "per_query": per_query,
    }


def executed_relevances(
    executions: ExecutionJudge,
    repository: Repository,
    results: Sequence[SearchResult],
    test: str,
) -> list[float]:
    """1.0 for each result the test program passes against, else 0.0."""
    return [
        float(executions.passes(repository=repository, unit=r.unit, test=test)) for r in results
    ]


def defines_first(query: str, results: Sequence[SearchResult]) -> bool:
    """For a name typed as a query: the first result defines that name (`Session.send`: a unit
    named `send`, or a module block that assigns it), by search's own rule."""
    name = query_shape(query).name
    return bool(results and name) and defines(results[0].unit, name)


def ablation_configurations(stages: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Each stream alone, then all but one stage (leave-one-out), then all. Rankers are not
    streams: they only appear in the leave-one-out rows."""
    streams = [s for s in stages if s not in ("ranker", "structure", "rerank")]
    configs = [(f"{s} only", (s,)) for s in streams]
    if len(stages) > 2:
        configs += [(f"without {s}", tuple(x for x in stages if x != s)) for s in stages]
    configs.append(("all: " + "+".join(stages), tuple(stages)))
    return configs


def per_query_values(report: dict[str, Any], key: str) -> list[float]:
    return [entry["metrics"][key] for entry in report["per_query"]]


def paired_rows(
    reports: dict[str, dict[str, Any]], baseline: str, reference: str
) -> list[dict[str, Any]]:
    """One row per configuration: its figures with 95% intervals, and its paired difference
    (same queries) from `baseline` and from `reference`."""
    rows = []
    for label, report in reports.items():
        row: dict[str, Any] = {
            "configuration": label,
            "stages": report["stages"],
            **{key: report[key] for key in METRIC_KEYS},
            "ci95": report["ci95"],
            "latency_p50_ms": report["latency_ms"]["p50"],
        }
        for name, other in (("vs_baseline", baseline), ("vs_reference", reference)):
            if other in reports and other != label:
                row[name] = {
                    key: {
                        k: round(v, 4) if isinstance(v, float) else v
                        for k, v in paired_difference(
                            per_query_values(report, key), per_query_values(reports[other], key)
                        ).items()
                    }
                    for key in CI_KEYS
                }
        rows.append(row)
    return rows


def ablate(
    *, dataset: EvalDataset, k: int, mode: str, stages: Sequence[str], limit: int | None = None
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Every configuration of `ablation_configurations` on the same queries, compared with
    S1 alone (plain MiniLM over the raw unit source: the baseline) and with all stages."""
    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    reports = {}
    for label, config in ablation_configurations(stages):
        reports[label] = evaluate(
            dataset=dataset, k=k, mode=mode, stages=config, limit=limit, repositories=repositories
        )
    reference = next(label for label in reports if label.startswith("all: "))
    return paired_rows(reports, baseline="S1 only", reference=reference), reports
