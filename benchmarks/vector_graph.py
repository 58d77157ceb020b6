"""The query streams answered by the in-memory HNSW graph (`indexing.vector_mirror`) against
Chroma's own query, paired on the developer questions' tuning part and on CoSQA dev: the graph
changes which neighbours the vector streams return, so the candidate pools and the answers may
move. Each configuration is evaluated per corpus after that corpus's copies (and graphs) are
loaded, as a warm server answers. Both sides cut the query streams at `--baseline-depth` (50,
the depth before the graph); `--depth D` adds the graph with them cut at D.

    python -m benchmarks.vector_graph --cosqa $COSQA/cosqa-retrieval-dev-500.json \\
        [--data-dir DIR] [--depth 40] --out docs/eval/vector-graph-quality.json
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import statistics
from pathlib import Path

from benchmarks.common import ROOT, machine_line, setup_django

QUESTIONS = ROOT / "benchmarks" / "questions" / "dev"


@contextlib.contextmanager
def search_settings(**values):
    """The search settings changed for the block (this process only)."""
    from django.conf import settings

    config = settings.REPORIFT["SEARCH"]
    saved = {key: config[key] for key in values}
    config.update(values)
    try:
        yield
    finally:
        config.update(saved)


def warm_evaluation(dataset, repositories: dict) -> list[dict]:
    """Each query's evaluation, corpus by corpus, once the corpus's vectors are copied and its
    graphs built (waited for: otherwise Chroma answers the first queries either way)."""
    from indexing.selectors import active_generation
    from search.evaluation.runner import evaluate
    from search.retrieval import retriever_store

    rows: list[dict] = []
    for key, repository in repositories.items():
        store = retriever_store(active_generation(repository=repository))
        if hasattr(store, "prefetch") and not store.prefetch(
            repository_id=repository.pk, wait_s=900
        ):
            raise SystemExit(f"the vectors of {key} were not copied within 15 minutes")
        queries = [q for q in dataset.queries if q.corpus == key]
        part = dataclasses.replace(dataset, corpora={key: dataset.corpora[key]}, queries=queries)
        report = evaluate(dataset=part, repositories={key: repository}, progress=False)
        for query, row in zip(queries, report["per_query"], strict=True):
            row.pop("results", None)  # the report keeps the metrics, not every result
            rows.append({"id": query.query_id} | row)  # CoSQA's rows carry no id of their own
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cosqa", type=Path, required=True, help="cosqa-retrieval-dev-500.json")
    parser.add_argument("--data-dir", help="reuse the corpora indexed there")
    parser.add_argument(
        "--baseline-depth", type=int, default=50, help="S1, S6 and S4's depth for both sides"
    )
    parser.add_argument("--depth", type=int, help="also the graph with S1, S6 and S4 cut here")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    setup_django(args.data_dir)
    from django.conf import settings

    from benchmarks.questions import compare
    from indexing.vector_mirror import forget_copies
    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset

    def cut(depth: int) -> dict[str, int]:
        return settings.REPORIFT["SEARCH"]["DEPTH"] | dict.fromkeys(("S1", "S6", "S4"), depth)

    before = cut(args.baseline_depth)
    configurations = {
        "chroma": {"VECTOR_GRAPH": False, "DEPTH": before},
        "graph": {"VECTOR_GRAPH": True, "DEPTH": before},
    }
    if args.depth:
        configurations[f"graph, depth {args.depth}"] = {
            "VECTOR_GRAPH": True,
            "DEPTH": cut(args.depth),
        }
    report: dict = {
        "command": "python -m benchmarks.vector_graph --cosqa COSQA/cosqa-retrieval-dev-500.json"
        + (f" --depth {args.depth}" if args.depth else ""),
        "machine": machine_line(),
        "baseline": "chroma",
    }
    for name, path, fmt in (
        ("questions (tune)", QUESTIONS, "questions"),
        ("cosqa dev", args.cosqa, "cosqa"),
    ):
        dataset = load_dataset(path, fmt, part="tune")
        repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
        runs = {}
        for label, values in configurations.items():
            forget_copies()  # each configuration copies (and builds graphs) as it is set
            with search_settings(**values):
                runs[label] = {"per_query": warm_evaluation(dataset, repositories)}
        report[name] = {
            label: compare(runs["chroma"], run) for label, run in runs.items() if label != "chroma"
        }
        # Which answered shows in the header stream's time: the graph's is a third of Chroma's.
        report[name]["S6 median ms"] = {
            label: statistics.median(row["timings_ms"].get("S6", 0.0) for row in run["per_query"])
            for label, run in runs.items()
        }
        print(name, json.dumps(report[name]["graph"]["all"], indent=1), flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
