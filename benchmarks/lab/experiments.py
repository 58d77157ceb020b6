"""The lab's experiments. Each prints a table and writes a JSON report with every query's rank
of the first hit, so every figure can be recomputed, and a paired comparison against plain
MiniLM over the raw unit source (the baseline a thirty-line script gets)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchmarks.lab import data
from benchmarks.lab.scoring import (
    compare,
    corpus_query_groups,
    cosine_scores,
    first_hit_rank,
    query_hits,
    summarise,
)

BASELINE = "plain MiniLM, raw source, all units"
# Unit scorer: (query index, corpus key, field vectors of the corpus, query vector) -> scores.
Scorer = Callable[[int, str, dict[str, np.ndarray], np.ndarray], np.ndarray]


def field_configs(corpora) -> dict[str, tuple[tuple[str, ...], Scorer]]:
    """name -> (fields it needs, scorer). Vector search covers functions and methods (the
    product's S1) unless the name says all units."""

    def functions(key: str) -> np.ndarray:
        return corpora[key].arrays().is_function

    def single(field: str, everything: bool = True) -> tuple[tuple[str, ...], Scorer]:
        return (field,), lambda i, key, v, q: cosine_scores(
            q, v[field], None if everything else functions(key)
        )

    def mix(a: float, header: str) -> tuple[tuple[str, ...], Scorer]:
        return ("code", header), lambda i, key, v, q: cosine_scores(
            q, a * v["code"] + (1 - a) * v[header], None
        )

    configs = {
        BASELINE: single("code", everything=True),
        "raw source, functions only": single("code", everything=False),
        "default text (before this work)": single("default"),
        "code with class/module context": single("code-context"),
    }
    headers = {
        "header": "header (context, docstring)",
        "header-plain": "header (docstring, no context)",
        "header-nodoc": "header (context, no docstring)",
        "header-bare": "header (no context, no docstring)",
    }
    for field, label in headers.items():
        configs[label] = single(field)
    for field, label in headers.items():
        configs[f"max(code, {label})"] = (
            ("code", field),
            lambda i, key, v, q, field=field: np.maximum(
                cosine_scores(q, v["code"], None), cosine_scores(q, v[field], None)
            ),
        )
        for a in (0.4, 0.5, 0.6):
            configs[f"{a:.1f} code + {1 - a:.1f} {label}"] = mix(a, field)
    return configs


def evaluate_configs(lab_set, embedder, configs) -> dict[str, list[float]]:
    qv = data.set_query_vectors(lab_set, embedder)
    hits = query_hits(lab_set)
    groups = corpus_query_groups(lab_set.queries)
    available: dict[str, dict[str, np.ndarray]] = {}
    ranks: dict[str, list[float]] = {}
    for name, (fields, scorer) in configs.items():
        try:
            for field in fields:
                if field not in available:
                    available[field] = cached_field(lab_set, field, embedder)
        except FileNotFoundError as exc:
            print(f"  skipped {name!r}: {exc}")
            continue
        out = [0.0] * len(lab_set.queries)
        for key, indexes in groups.items():
            vectors = {f: available[f][key] for f in fields}
            for i in indexes:
                scores = scorer(i, key, vectors, qv[i])
                out[i] = first_hit_rank(lab_set.corpora[key], scores, hits[i])
        ranks[name] = out
    return ranks


def cached_field(lab_set, field: str, embedder) -> dict[str, np.ndarray]:
    """Only vectors already made: an experiment never starts an hour of embedding."""
    store = data.LAB_DIR / "vectors"
    out = {}
    for key, corpus in lab_set.corpora.items():
        path = store / f"{key}--{embedder.model_id}--{field}.npy"
        if not path.exists():
            raise FileNotFoundError(f"no {field} vectors for {key} ({embedder.model_id})")
        out[key] = np.load(path)
        if len(out[key]) != len(corpus.units):
            raise FileNotFoundError(f"stale {field} vectors for {key}")
    return out


def report(ranks: dict[str, list[float]], baseline: str) -> dict:
    rows = {}
    for name, values in ranks.items():
        rows[name] = {"summary": summarise(values), "ranks": values}
        if name != baseline and baseline in ranks:
            rows[name]["vs_baseline"] = compare(values, ranks[baseline])
    return rows


EMBEDDERS = (("fp32", 256), ("int8-dynamic", 256), ("fp32", 128), ("int8-dynamic", 128))


def compare_embedders(lab_set) -> dict:
    """Raw source and header, functions only, for each embedding graph and cut-off; the
    baseline is the fp32 graph at 256 word pieces (sentence-transformers' own setting)."""
    ranks: dict[str, list[float]] = {}
    for variant, tokens in EMBEDDERS:
        embedder = data.embedder_for(variant, tokens)
        configs = field_configs(lab_set.corpora)
        chosen = {k: configs[k] for k in (BASELINE, "max(code, header (no context, no docstring))")}
        for name, values in evaluate_configs(lab_set, embedder, chosen).items():
            ranks[f"{variant}/{tokens}: {name}"] = values
    rows = {}
    for name, values in ranks.items():
        base = ranks.get("fp32/256: " + name.split(": ", 1)[1])
        rows[name] = {"summary": summarise(values), "ranks": values}
        if base is not None and base is not values:
            rows[name]["vs_baseline"] = compare(values, base)
    return rows
