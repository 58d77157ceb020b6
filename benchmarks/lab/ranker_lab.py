"""The learned ranker in the lab: the same candidates fast mode gathers (top N of the code vector,
the header vector and BM25, each found exactly here), the product's features, LightGBM's
LambdaRank fitted on the `train` packages only, scored on a dev set.

    python -m benchmarks.lab ranker --sets dev cosqa --cosqa ... --out docs/eval/lab-ranker.json
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchmarks.lab import data
from benchmarks.lab.corpora import LabCorpus
from benchmarks.lab.experiments import BASELINE, cached_field, evaluate_configs, field_configs
from benchmarks.lab.scoring import (
    compare,
    corpus_query_groups,
    first_hit_rank,
    query_hits,
    summarise,
)
from indexing.lexical import bm25_index, unit_tokens
from search.ranking.features import Candidate, feature_matrix
from search.ranking.order import blended_scores

DEPTH = 50
HEADER_FIELD = "header-bare"  # what the product embeds as its header field


@dataclass
class QueryCandidates:
    indexes: np.ndarray  # unit indexes in the corpus
    features: np.ndarray
    labels: np.ndarray
    fused: np.ndarray  # the fast-mode score before the ranker (for ablations)
    stream_ranks: dict[str, np.ndarray]  # stream -> 1-based rank of each candidate, or inf


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    n = min(n, len(scores))
    top = np.argpartition(-scores, n - 1)[:n]
    return top[np.isfinite(scores[top]) & (scores[top] > -np.inf)]


def lexical(corpus: LabCorpus):
    if not hasattr(corpus, "_bm25"):
        corpus._bm25 = bm25_index(
            list(range(len(corpus.units))),
            [unit_tokens(u.path, u.qualname, u.docstring, u.code) for u in corpus.units],
        )
    return corpus._bm25


def gather(lab_set, embedder, *, depth: int = DEPTH, functions_only: bool = False):
    """Candidates with features and labels for every query of the set."""
    from indexing.lexical import tokenize

    qv = data.set_query_vectors(lab_set, embedder)
    code = cached_field(lab_set, "code", embedder)
    header = cached_field(lab_set, HEADER_FIELD, embedder)
    hits = query_hits(lab_set)
    out: list[QueryCandidates] = [None] * len(lab_set.queries)  # type: ignore[list-item]
    for key, indexes in corpus_query_groups(lab_set.queries).items():
        corpus = lab_set.corpora[key]
        eligible = (
            corpus.arrays().is_function if functions_only else np.ones(len(corpus.units), bool)
        )
        index = lexical(corpus)
        for i in indexes:
            query = lab_set.queries[i].text
            cos_code, cos_header = code[key] @ qv[i], header[key] @ qv[i]
            tokens = tokenize(query)
            bm25 = (
                index.retriever.get_scores(tokens)
                if tokens and index.indexed
                else np.zeros(len(corpus.units))
            )
            tops = {
                "S1": _ranked(_top(np.where(eligible, cos_code, -np.inf), depth), cos_code),
                "S6": _ranked(_top(np.where(eligible, cos_header, -np.inf), depth), cos_header),
                "S4": _ranked([j for j in _top(bm25, depth).tolist() if bm25[j] > 0], bm25),
            }
            ordered = np.array(sorted({j for top in tops.values() for j in top}))
            candidates = [
                Candidate(corpus.units[j], float(cos_code[j]), float(cos_header[j]), float(bm25[j]))
                for j in ordered
            ]
            out[i] = QueryCandidates(
                ordered,
                feature_matrix(query, candidates),
                hits[i][ordered].astype(int),
                cos_code[ordered],
                {
                    name: np.array([top.get(j, np.inf) for j in ordered], dtype=float)
                    for name, top in tops.items()
                },
            )
    return out


def _ranked(indexes, scores: np.ndarray) -> dict[int, int]:
    """{unit index: 1-based rank} of a stream's hits, best first."""
    order = sorted(indexes, key=lambda j: -scores[j])
    return {int(j): rank for rank, j in enumerate(order, start=1)}


def fusion_score(qc: QueryCandidates, weights: dict[str, float], k: int = 60) -> np.ndarray:
    """Weighted reciprocal-rank fusion of the streams, as search does without a ranker."""
    total = np.zeros(len(qc.indexes))
    for name, ranks in qc.stream_ranks.items():
        total += np.where(np.isfinite(ranks), weights.get(name, 0.0) / (k + ranks), 0.0)
    return total


def fit(train: list[QueryCandidates], **overrides):
    """The product's training recipe (`benchmarks.train_ranker.fit`) on lab candidates."""
    from benchmarks.train_ranker import fit as fit_groups

    return fit_groups([(q.features, q.labels) for q in train], **overrides)


def ranks_with(lab_set, candidates: list[QueryCandidates], score) -> list[float]:
    """Rank of the first hit when candidates are ordered by `score(qc)`; a hit outside the
    candidate set is a miss."""
    ranks = []
    for query, qc in zip(lab_set.queries, candidates, strict=True):
        corpus = lab_set.corpora[query.corpus]
        if not qc.labels.any():
            ranks.append(math.inf)
            continue
        scores = np.full(len(corpus.units), -np.inf)
        scores[qc.indexes] = score(qc)
        hits = np.zeros(len(corpus.units), dtype=bool)
        hits[qc.indexes] = qc.labels.astype(bool)
        ranks.append(first_hit_rank(corpus, scores, hits))
    return ranks


def ranker_experiment(lab_set, args) -> dict:
    embedder = data.embedder_for(args.variant, args.max_tokens)
    train_set = data.load_set("train", packages=args.packages, cosqa=None)
    train = gather(train_set, embedder)
    model = fit(train)
    dev = gather(lab_set, embedder)
    configs = field_configs(lab_set.corpora)
    ranks = evaluate_configs(lab_set, embedder, {BASELINE: configs[BASELINE]})
    for weight in (0.0, 0.25, 0.5, 0.75, 1.0):
        weights = {"S1": 1.0, "S6": weight, "S4": 0.05}
        ranks[f"fusion: S1 + {weight} S6 + 0.05 S4"] = ranks_with(
            lab_set, dev, lambda qc, w=weights: fusion_score(qc, w)
        )
    ranks["learned ranker"] = ranks_with(
        lab_set, dev, lambda qc: model.predict(qc.features, num_threads=1)
    )
    recall = np.mean([qc.labels.any() for qc in dev])
    print(f"candidate recall (a hit among the candidates): {recall:.3f}")
    rows = {}
    for name, values in ranks.items():
        rows[name] = {"summary": summarise(values), "ranks": values}
        if name != BASELINE:
            rows[name]["vs_baseline"] = compare(values, ranks[BASELINE])
    rows["learned ranker"]["feature_gain"] = dict(
        zip(model.feature_name(), model.feature_importance("gain").round(1).tolist(), strict=True)
    )
    return rows


def variants_experiment(lab_sets, args) -> dict:
    """Ranker variants fitted on train, each scored on every dev set: the full model, with
    monotone constraints, without the lexical features, and blends of its score with the code
    cosine (both as per-query z-scores)."""
    from search.ranking.features import FEATURES

    embedder = data.embedder_for(args.variant, args.max_tokens)
    train = gather(data.load_set("train", packages=args.packages, cosqa=None), embedder)
    increasing = {
        "cos_code",
        "cos_header",
        "bm25",
        "bm25_share",
        "name_hits",
        "name_share_of_query",
        "qualname_share_of_query",
        "code_share_of_query",
        "signature_share_of_query",
    }
    decreasing = {
        "cos_code_gap",
        "cos_header_gap",
        "cos_code_rank",
        "cos_header_rank",
        "cos_sum_rank",
        "bm25_rank",
    }
    monotone = [1 if f in increasing else -1 if f in decreasing else 0 for f in FEATURES]
    lexical = [i for i, f in enumerate(FEATURES) if f.startswith("bm25")]
    models = {
        "ranker": fit(train),
        "ranker, monotone": fit(train, monotone_constraints=monotone),
    }
    no_lex = [
        QueryCandidates(
            q.indexes, np.delete(q.features, lexical, axis=1), q.labels, q.fused, q.stream_ranks
        )
        for q in train
    ]
    out = {}
    for lab_set in lab_sets:
        dev = gather(lab_set, embedder)
        configs = field_configs(lab_set.corpora)
        ranks = evaluate_configs(lab_set, embedder, {BASELINE: configs[BASELINE]})
        for name, model in models.items():
            ranks[name] = ranks_with(lab_set, dev, lambda qc, m=model: m.predict(qc.features))
            for alpha in (0.5, 1.0, 2.0):
                ranks[f"{name} + {alpha} x code cosine"] = ranks_with(
                    lab_set,
                    dev,
                    lambda qc, m=model, a=alpha: blended_scores(
                        qc.features, m.predict(qc.features), a
                    ),
                )
        import lightgbm  # noqa: F401

        from benchmarks.train_ranker import fit as fit_groups

        reduced = fit_groups(
            [(q.features, q.labels) for q in no_lex],
            feature_name=[f for i, f in enumerate(FEATURES) if i not in lexical],
        )
        ranks["ranker without lexical features"] = ranks_with(
            lab_set,
            dev,
            lambda qc, m=reduced: m.predict(np.delete(qc.features, lexical, axis=1)),
        )
        rows = {}
        for name, values in ranks.items():
            rows[name] = {"summary": summarise(values), "ranks": values}
            if name != BASELINE:
                rows[name]["vs_baseline"] = compare(values, ranks[BASELINE])
        out[lab_set.name] = rows
    return out
