"""Loading a lab data set once per process: its corpora, queries and vectors."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.lab.corpora import (
    LabCorpus,
    LabQuery,
    field_vectors,
    load_cosqa_split,
    load_package_split,
    query_vectors,
)
from benchmarks.lab.fields import field_text

LAB_DIR = Path(os.environ.get("REPORIFT_LAB_DIR", "var/benchmarks/lab"))


@dataclass
class LabSet:
    name: str
    corpora: dict[str, LabCorpus]
    queries: list[LabQuery]


def setup(lab_dir: Path = LAB_DIR) -> None:
    """Django on the lab's own data dir: its database holds the vector cache that the lab and
    `evaluate` runs on the same dir share."""
    from benchmarks.common import setup_django

    setup_django(str((lab_dir / "data").resolve()))


def load_set(name: str, *, packages: Path, cosqa: Path | None) -> LabSet:
    if name == "cosqa":
        if cosqa is None:
            raise SystemExit("the cosqa set needs --cosqa PATH/cosqa-retrieval-dev-500.json")
        corpora, queries = load_cosqa_split(cosqa, LAB_DIR)
    else:
        corpora, queries = load_package_split(packages / f"{name}.jsonl")
    return LabSet(name, corpora, queries)


def embedder_for(variant: str, max_tokens: int):
    from indexing.embedding import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(variant=variant, max_tokens=max_tokens)


def set_vectors(lab_set: LabSet, field: str, embedder) -> dict[str, np.ndarray]:
    store = LAB_DIR / "vectors"
    return {
        key: field_vectors(
            corpus, field, field_text(field, corpus.paths_are_words), embedder, store
        )
        for key, corpus in lab_set.corpora.items()
    }


def set_query_vectors(lab_set: LabSet, embedder) -> np.ndarray:
    return query_vectors(lab_set.queries, embedder, LAB_DIR / "vectors", lab_set.name)
