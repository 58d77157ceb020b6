"""Fit the learned ranker on the package benchmark's `train` packages, through the product's own
search path, and write the committed model and its manifest (`make train-ranker`).

    python -m benchmarks.package_benchmark            # writes var/benchmarks/packages/*.jsonl
    python -m benchmarks.train_ranker [--rows var/benchmarks/packages/train.jsonl]

Each train query runs fast mode's streams (S1, S6, S4) on its indexed package; the candidates
they gather get the features search computes (`search.ranking.order.candidate_features`) and a
label (1 for the gold unit or the class that encloses it, RepoRift's rule). LightGBM's
LambdaRank is fitted on them with fixed parameters and seed, so the same data gives the same
model. Only `train` rows may be given: defaults are chosen on `dev`, never fitted there.

The data dir defaults to the lab's (`var/benchmarks/lab/data`), whose vector cache already holds
the train packages' vectors when the lab has run; from nothing, indexing the train packages
(63,000 units) takes about half an hour on two cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from datetime import date
from pathlib import Path

import numpy as np

from benchmarks.common import ROOT, setup_django

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
    return np.array(
        [
            any(
                u.path == g.path
                and (
                    u.qualname == g.qualname
                    or (u.kind == "class" and g.qualname.startswith(u.qualname + "."))
                )
                for g in gold
            )
            for u in units
        ],
        dtype=int,
    )


def training_groups(rows: Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict]:
    from tqdm import tqdm

    from search.evaluation.corpora import prepare_corpus
    from search.evaluation.datasets import load_dataset
    from search.filters import SearchFilters
    from search.ranking.order import candidate_features
    from search.retrieval import Retriever
    from search.services import gather_candidates

    dataset = load_dataset(rows, "repo")
    repositories = {key: prepare_corpus(c) for key, c in dataset.corpora.items()}
    groups = []
    for query in tqdm(dataset.queries, desc="train queries", unit="q"):
        repository = repositories[query.corpus]
        retriever = Retriever(
            repository=repository,
            generation=repository.active_run,
            filters=SearchFilters(),
            k=10,
        )
        results = [
            retriever.code_stream(query.query),
            retriever.header_stream(query.query),
            retriever.lexical_stream(query.query),
        ]
        pool = gather_candidates(results, retriever)
        features = candidate_features(query=query.query, units=pool.units, retriever=retriever)
        groups.append((features, labels_for(list(pool.units.values()), query.gold)))
    info = {
        "rows": str(rows),
        "rows_sha256": hashlib.sha256(rows.read_bytes()).hexdigest(),
        "queries": len(dataset.queries),
        "packages": sorted(Path(c.source).name for c in dataset.corpora.values()),
        "units": sum(r.active_run.units_total for r in repositories.values()),
        "queries_with_a_hit_among_candidates": int(sum(y.any() for _, y in groups)),
    }
    return groups, info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, default=Path("var/benchmarks/packages/train.jsonl"))
    parser.add_argument("--data-dir", default="var/benchmarks/lab/data")
    parser.add_argument("--out", type=Path, default=ROOT / "search" / "ranking" / "ranker.txt")
    args = parser.parse_args()
    if args.rows.name != "train.jsonl":
        raise SystemExit("the ranker is fitted on the train split only (train.jsonl)")
    setup_django(str(Path(args.data_dir).resolve()))
    from indexing.embedding import get_embedder
    from search.ranking.features import FEATURES

    start = time.perf_counter()
    groups, info = training_groups(args.rows)
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
