"""Fit the learned ranker on the package benchmark's `train` packages, through the product's own
search path, and write the committed model and its manifest (`make train-ranker`).

    python -m benchmarks.package_benchmark            # writes var/benchmarks/packages/*.jsonl
    python -m benchmarks.language_train   # writes var/benchmarks/language-train/train.jsonl
    python -m benchmarks.train_ranker [--rows var/benchmarks/packages/train.jsonl]
        --heldout $HELDOUT/projects.txt
        --cosqa-train $COSQA/cosqa-train-pairs.json [--cosqa-queries 2000]
        [--question-rows var/benchmarks/language-train/train.jsonl ...]
        [--question-set benchmarks/questions/train]

`make train-ranker` gives `--question-set benchmarks/questions/train`: developer questions written
by hand over 17 train packages (behaviour and architecture questions in a user's words, which
no generated row is), graded 2 for a primary target and 1 for a secondary one. With them the
ranker gained on the developer questions' behaviour rows and lost nothing on the dev packages or
CoSQA dev (docs/eval/ranker-written-questions.json; counted three times, or boosted alone on top
of the fitted model, they did worse: those trial options were removed after 260d0f6).

`make train-ranker` also gives `--question-rows` the rows `benchmarks.language_train` generates
from the other languages' train corpora (doc-comment sentences and names in JavaScript,
TypeScript, Go, Rust, Ruby, PHP, Lua, C and Bash), so that the features mean the same to the
model in every language (`is_private` and `is_special` read each language's own conventions).
Each train query runs fast mode's streams (S1, S6, S4, S7) on its indexed package; the candidates
they gather get the features search computes (`search.ranking.order.candidate_features`) and a
label (1 for the gold unit or the class that encloses it, RepoRift's rule). LightGBM's
LambdaRank is fitted on them with fixed parameters and seed, so the same data gives the same
model. Only `train` rows may be given: defaults are chosen on `dev`, never fitted there. Nor is
it fitted on a held-out project (`--heldout`, the project's list, kept outside the repository):
a package, corpus or question set naming one stops the fit before anything is indexed.

Package rows are docstring sentences over whole repositories; a ranker fitted on them alone
trusts names and shared words more than web questions deserve. `--cosqa-train` adds N of
CoSQA's training queries (web questions), each over a snippet corpus made of every code in the
training pairs (its human-judged non-answers stay in as distractors). `--cosqa-queries 0`
fits on package rows alone.

The data dir defaults to `var/benchmarks/lab/data`, the one the dev-set evaluations share, whose
vector cache holds the train packages' vectors once they were indexed there; from nothing,
indexing the train packages (63,000 units) takes about half an hour on two cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, setup_django
from benchmarks.heldout import is_held_out, list_sha256, read_projects

# Fixed: the model is rebuilt from data alone. Chosen for a small, smooth model (300 trees of 15
# leaves, at least 50 candidates per leaf), not tuned on dev.
PARAMETERS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "ndcg_eval_at": [1, 10],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambdarank_truncation_level": 20,
    "seed": 7,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 2,
    "verbose": -1,
}
ROUNDS = 300
# CoSQA training queries added to the package rows: chosen on both dev sets among 0, 700, 2,000
# and all 6,722, which cost the packages MRR -0.017 and gave CoSQA nothing
# (docs/eval/ranker-refit.json, docs/eval/ranker-refit-6722.json).
COSQA_QUERIES = 2000


def fit(
    groups: list[tuple[np.ndarray, np.ndarray]],
    *,
    rounds: int = ROUNDS,
    feature_name: list[str] | None = None,
    **overrides,
):
    """LambdaRank over (features, labels) per query; queries without a hit among their
    candidates, or with a single candidate, teach nothing and are left out."""
    import lightgbm

    from search.ranking.features import FEATURES

    usable = [(x, y) for x, y in groups if y.any() and len(y) > 1]
    dataset = lightgbm.Dataset(
        np.vstack([x for x, _ in usable]),
        np.concatenate([y for _, y in usable]),
        group=[len(y) for _, y in usable],
        feature_name=feature_name or list(FEATURES),
    )
    return lightgbm.train(PARAMETERS | overrides, dataset, num_boost_round=rounds)


def labels_for(units, gold) -> np.ndarray:
    """1 for a unit that covers a gold target as evaluation judges it (the unit, its enclosing
    class, the module block that binds a gold name, any unit of a gold file)."""
    return np.array(
        [any(g.covered_by(path=u.path, unit=u) for g in gold) for u in units], dtype=int
    )


def graded_labels_for(units, gold) -> np.ndarray:
    """The developer questions' grades: 2 for a unit that covers a primary target, 1 for one
    that covers only a secondary one (evaluation's 1 and 0.5), 0 otherwise."""

    def grade(unit) -> int:
        covered = [g for g in gold if g.covered_by(path=unit.path, unit=unit)]
        return max((2 if g.primary else 1 for g in covered), default=0)

    return np.array([grade(u) for u in units], dtype=int)


def snippet_labels_for(units, gold) -> np.ndarray:
    """A snippet corpus: every unit of the gold snippet's file is a hit."""
    from search.evaluation.corpora import snippet_filename

    files = {snippet_filename(g.path) for g in gold}
    return np.array([u.path in files for u in units], dtype=int)


def cosqa_training_dataset(path: Path, *, queries: int):
    """CoSQA's training pairs as ranking data: the snippet corpus is every distinct code in the
    file (answers and human-judged non-answers alike), and `queries` of the queries with an
    answer ask for it, taken in a fixed order (by the query's sha256) so that the same file
    and number give the same sample."""
    from search.evaluation.datasets import Corpus, EvalDataset, EvalQuery, GoldUnit

    pairs = json.loads(path.read_text())
    if not isinstance(pairs, list):
        raise SystemExit(f"{path}: expected a JSON list of CoSQA pairs")

    def snippet_id(code: str) -> str:
        return "t" + hashlib.sha256(code.encode()).hexdigest()[:16]

    snippets = {snippet_id(p["code"]): p["code"] for p in pairs}
    answers: dict[str, set[str]] = {}
    for pair in pairs:
        if int(pair["label"]) == 1:
            answers.setdefault(pair["query"], set()).add(snippet_id(pair["code"]))
    chosen = sorted(answers, key=lambda q: hashlib.sha256(q.encode()).hexdigest())[:queries]
    corpus = Corpus(key="cosqa-train", kind="snippets", snippets=snippets)
    return EvalDataset(
        name="cosqa-train",
        format="cosqa",
        corpora={corpus.key: corpus},
        queries=[
            EvalQuery(
                query_id=f"cosqa-train-{n}",
                query=query,
                corpus=corpus.key,
                gold=[GoldUnit(path=s) for s in sorted(answers[query])],
            )
            for n, query in enumerate(chosen)
        ],
    )


def _files_sha256(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def refuse_held_out(*datasets, projects: frozenset[str]) -> None:
    """Stop (SystemExit) when a corpus of `datasets` is a held-out project, by its name (a
    package's is `name-version`) or the directory it was read from."""
    named = sorted(
        key
        for dataset in datasets
        for key, corpus in dataset.corpora.items()
        if is_held_out([key, key.rsplit("-", 1)[0], Path(corpus.source).name], projects)
    )
    if named:
        raise SystemExit(f"held-out projects among the train data: {', '.join(named)}")


def training_groups(dataset) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict]:
    from tqdm import tqdm

    from search import streams as S
    from search.evaluation.corpora import prepare_corpus
    from search.filters import SearchFilters
    from search.ranking.order import candidate_features
    from search.retrieval import Retriever
    from search.services import gather_candidates

    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    if dataset.format == "questions":
        label = graded_labels_for
    elif all(c.kind == "snippets" for c in dataset.corpora.values()):
        label = snippet_labels_for
    else:
        label = labels_for
    groups = []
    for query in tqdm(dataset.queries, desc=f"{dataset.name} queries", unit="q"):
        repository = repositories[query.corpus]
        retriever = Retriever(
            repository=repository,
            generation=repository.active_run,
            filters=SearchFilters(),
            k=10,
        )
        results = [
            S.code_stream(retriever.streams, query.query),
            S.header_stream(retriever.streams, query.query),
            S.lexical_stream(retriever.streams, query.query),
            S.definitions_stream(retriever.streams, query.query),
        ]
        pool = gather_candidates(results, retriever)
        features = candidate_features(query=query.query, units=pool.units, retriever=retriever)
        groups.append((features, label(list(pool.units.values()), query.gold)))
    info = {
        "queries": len(dataset.queries),
        "units": sum(r.active_run.units_total for r in repositories.values()),
        "queries_with_a_hit_among_candidates": int(sum(y.any() for _, y in groups)),
    }
    return groups, info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, default=Path("var/benchmarks/packages/train.jsonl"))
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument("--out", type=Path, default=ROOT / "search" / "ranking" / "ranker.txt")
    parser.add_argument("--cosqa-train", type=Path, help="cosqa-train-pairs.json (and no other)")
    parser.add_argument("--cosqa-queries", type=int, default=COSQA_QUERIES)
    parser.add_argument(
        "--question-rows",
        type=Path,
        nargs="+",
        default=[],
        help="generated rows in the repo format (benchmarks.language_train: the other languages)",
    )
    parser.add_argument(
        "--heldout", type=Path, required=True, help="the held-out projects list (projects.txt)"
    )
    parser.add_argument(
        "--question-set",
        type=Path,
        help="hand-written developer questions over train packages (benchmarks/questions/train)",
    )
    args = parser.parse_args()
    for rows in [args.rows, *args.question_rows]:
        if rows.name != "train.jsonl":
            raise SystemExit("the ranker is fitted on the train split only (train.jsonl)")
    if args.question_set and args.question_set.name != "train":
        raise SystemExit("the ranker is fitted on train questions only (questions/train)")
    if args.cosqa_queries and not args.cosqa_train:
        raise SystemExit("--cosqa-train is needed (or --cosqa-queries 0 for package rows alone)")
    if args.cosqa_train and args.cosqa_train.name != "cosqa-train-pairs.json":
        raise SystemExit("CoSQA data for fitting is cosqa-train-pairs.json only")
    setup_django(str(Path(args.data_dir).resolve()))
    from indexing.embedding import get_embedder
    from search.evaluation.datasets import load_dataset
    from search.ranking.features import FEATURES

    start = time.perf_counter()
    rows = load_dataset(args.rows, "repo")
    generated = {path: load_dataset(path, "repo") for path in args.question_rows}
    written = (
        load_dataset(args.question_set, "questions", part="all") if args.question_set else None
    )
    refuse_held_out(
        rows,
        *generated.values(),
        *([written] if written is not None else []),
        projects=read_projects(args.heldout),
    )
    groups, counts = training_groups(rows)
    info = {
        "rows": str(args.rows),
        "rows_sha256": hashlib.sha256(args.rows.read_bytes()).hexdigest(),
        "packages": sorted(Path(c.source).name for c in rows.corpora.values()),
        **counts,
    }
    for question_rows, questions in generated.items():
        question_groups, counts = training_groups(questions)
        groups += question_groups
        info.setdefault("question_rows", []).append(
            {
                "file": str(question_rows),
                "sha256": hashlib.sha256(question_rows.read_bytes()).hexdigest(),
                "kinds": dict(Counter(q.kind for q in questions.queries)),
                **counts,
            }
        )
    if written is not None:
        written_groups, counts = training_groups(written)
        groups += written_groups
        info["question_set"] = {
            "directory": str(args.question_set),
            "sha256": _files_sha256(sorted(args.question_set.glob("*.jsonl"))),
            "packages": sorted(written.corpora),
            "kinds": dict(Counter(q.kind for q in written.queries)),
            **counts,
        }
    if args.cosqa_queries:
        dataset = cosqa_training_dataset(args.cosqa_train, queries=args.cosqa_queries)
        cosqa_groups, cosqa = training_groups(dataset)
        groups += cosqa_groups
        info["cosqa_train"] = {
            "file": args.cosqa_train.name,
            "sha256": hashlib.sha256(args.cosqa_train.read_bytes()).hexdigest(),
            **cosqa,
        }
    model = fit(groups)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save_model(str(args.out))
    manifest = {
        "sha256": hashlib.sha256(args.out.read_bytes()).hexdigest(),
        "features": list(FEATURES),
        "parameters": PARAMETERS,
        "rounds": ROUNDS,
        "embedder": get_embedder().model_id,
        "trained_on": info,
        "heldout_sha256": list_sha256(args.heldout),
        "command": "make train-ranker",
        "date": str(date.today()),
        "seconds": round(time.perf_counter() - start),
        "feature_gain": dict(
            zip(
                FEATURES,
                (round(float(g), 1) for g in model.feature_importance("gain")),
                strict=True,
            )
        ),
    }
    args.out.with_suffix(".json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes) and its manifest")


if __name__ == "__main__":
    main()
