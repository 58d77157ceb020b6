"""Query-side probes for the plain embedder: does rewriting the question, or feeding the first
results back into it, rank the answer higher? Web questions nearly all name the language
("python check if a variable is iterable") where the code never does, which makes dropping the
word a natural guess; pseudo-relevance feedback (Rocchio: the query vector moved towards the
mean of its first k results) is the textbook cheap gain for dense retrieval. Both only touch
the query, so either would carry over to every stream at no indexing cost."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from benchmarks.lab import data
from benchmarks.lab.experiments import BASELINE, cached_field, report
from benchmarks.lab.scoring import corpus_query_groups, first_hit_rank, query_hits

LANGUAGE = re.compile(r"\b(?:in |using |with |for )?python\s*(?:\d(?:\.\d+)?)?\b", re.I)
HOW_TO = re.compile(r"^how (?:do|to|can) (?:i |you |we )?", re.I)
FEEDBACK = ((1, 0.2), (1, 0.5), (3, 0.2), (3, 0.5), (10, 0.2), (10, 0.5), (10, 1.0))


def without_language(text: str) -> str:
    """The question without the language's name; the question itself if nothing is left."""
    return " ".join(LANGUAGE.sub(" ", text).split()) or text


def without_language_or_how_to(text: str) -> str:
    return " ".join(HOW_TO.sub(" ", without_language(text)).split()) or text


REWRITES: dict[str, Callable[[str], str]] = {
    "language name dropped from the query": without_language,
    "language name and leading 'how to' dropped": without_language_or_how_to,
}


def query_experiment(lab_set, embedder) -> dict:
    """Raw-source cosine over all units for each query variant; the baseline is the same
    cosine with the question as asked."""
    hits = query_hits(lab_set)
    groups = corpus_query_groups(lab_set.queries)
    code = cached_field(lab_set, "code", embedder)
    asked = data.set_query_vectors(lab_set, embedder)

    def ranks_of(score: Callable[[int, np.ndarray], np.ndarray]) -> list[float]:
        out = [0.0] * len(lab_set.queries)
        for key, indexes in groups.items():
            for i in indexes:
                out[i] = first_hit_rank(lab_set.corpora[key], score(i, code[key]), hits[i])
        return out

    ranks = {BASELINE: ranks_of(lambda i, vectors: vectors @ asked[i])}
    for name, rewrite in REWRITES.items():
        rewritten = embedder.embed([rewrite(q.text) for q in lab_set.queries])
        ranks[name] = ranks_of(lambda i, vectors, q=rewritten: vectors @ q[i])
    for k, weight in FEEDBACK:

        def with_feedback(i: int, vectors: np.ndarray, k=k, weight=weight) -> np.ndarray:
            first = np.argsort(-(vectors @ asked[i]))[:k]
            return vectors @ (asked[i] + weight * vectors[first].mean(axis=0))

        ranks[f"feedback: query + {weight} x mean of its first {k}"] = ranks_of(with_feedback)
    return report(ranks, BASELINE)
