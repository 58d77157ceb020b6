"""The ranking lab's data: the package benchmark's repositories and CoSQA's snippets, parsed with
the product's parser, their field texts embedded with the product's embedder through the product's
vector cache (so `evaluate` later finds every vector already made), and scored exactly.

Vectors of a (corpus, model, field) are also kept as one `.npy` file beside the cache, because
reading 50,000 vectors from SQLite for every experiment is slower than the experiment.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from indexing.parsing import parse_source
from indexing.sources import iter_python_files
from search.filters import is_test_path

FUNCTION_KINDS = ("function", "method")


@dataclass
class LabCorpus:
    key: str
    kind: str  # "repo" or "snippets"
    root: Path
    units: list[SimpleNamespace] = field(default_factory=list)

    @property
    def paths_are_words(self) -> bool:
        return self.kind == "repo"

    def arrays(self) -> SimpleNamespace:
        """Per-unit columns the scorers need, built once."""
        if not hasattr(self, "_arrays"):
            kinds = np.array([u.kind for u in self.units])
            self._arrays = SimpleNamespace(
                is_function=np.isin(kinds, FUNCTION_KINDS),
                is_test=np.array([is_test_path(u.path) for u in self.units]),
                snippet=np.array([u.path.removesuffix(".py") for u in self.units]),
            )
        return self._arrays


@dataclass
class LabQuery:
    text: str
    corpus: str
    gold: list[tuple[str, str]]  # (path, qualname); for snippets (snippet id, "")


def parse_tree(key: str, kind: str, root: Path) -> LabCorpus:
    corpus = LabCorpus(key, kind, root)
    warnings: list[str] = []
    for entry in iter_python_files(root, max_file_bytes=2 * 1024 * 1024, warnings=warnings):
        parsed = parse_source(entry.absolute.read_bytes())
        for unit in parsed.units:
            corpus.units.append(
                SimpleNamespace(
                    path=entry.path,
                    kind=unit.kind,
                    qualname=unit.qualname,
                    name=unit.name,
                    signature=unit.signature,
                    docstring=unit.docstring,
                    code=unit.code,
                    class_name=unit.class_name,
                    class_summary=unit.class_summary,
                    module_summary=parsed.module_summary,
                    start_line=unit.start_line,
                    end_line=unit.end_line,
                    decorators=unit.decorators,
                )
            )
    return corpus


def load_package_split(rows_file: Path) -> tuple[dict[str, LabCorpus], list[LabQuery]]:
    corpora: dict[str, LabCorpus] = {}
    queries = []
    for line in rows_file.read_text().splitlines():
        row = json.loads(line)
        root = (rows_file.parent / row["repo"]).resolve()
        if row["repo"] not in corpora:
            corpora[row["repo"]] = parse_tree(row["repo"], "repo", root)
        gold = [(g["path"], g["qualname"]) for g in row["gold"]]
        queries.append(LabQuery(row["query"], row["repo"], gold))
    return corpora, queries


def load_cosqa_split(
    retrieval_file: Path, work: Path
) -> tuple[dict[str, LabCorpus], list[LabQuery]]:
    """CoSQA's snippets written one file each (as `evaluate` indexes them), then parsed."""
    from search.evaluation.corpora import snippet_filename

    code_map = json.loads((retrieval_file.parent / "code_idx_map.txt").read_text())
    root = work / "cosqa-snippets"
    if not root.exists():
        root.mkdir(parents=True)
        for code, idx in code_map.items():
            (root / snippet_filename(str(idx))).write_text(code, encoding="utf-8")
    corpus = parse_tree("cosqa", "snippets", root)
    queries = [
        LabQuery(r["doc"], "cosqa", [(str(r["retrieval_idx"]), "")])
        for r in json.loads(retrieval_file.read_text())
    ]
    return {"cosqa": corpus}, queries


def field_vectors(
    corpus: LabCorpus,
    name: str,
    text_of: Callable[[SimpleNamespace], str],
    embedder,
    store: Path,
) -> np.ndarray:
    """Vectors of every unit's `text_of(unit)`, through the product's vector cache."""
    from indexing.vector_cache import embed_cached

    path = store / f"{corpus.key}--{embedder.model_id}--{name}.npy"
    if path.exists():
        vectors = np.load(path)
        if len(vectors) == len(corpus.units):
            return vectors
    texts = [text_of(u) for u in corpus.units]
    vectors = embed_cached(embedder, texts)
    store.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def query_vectors(queries: list[LabQuery], embedder, store: Path, tag: str) -> np.ndarray:
    from indexing.vector_cache import embed_cached

    path = store / f"queries-{tag}--{embedder.model_id}.npy"
    if path.exists():
        vectors = np.load(path)
        if len(vectors) == len(queries):
            return vectors
    vectors = embed_cached(embedder, [q.text for q in queries])
    store.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def relevance(corpus: LabCorpus, query: LabQuery) -> np.ndarray:
    """1 for units that count as a hit (RepoRift's rule: the gold unit or a class enclosing it;
    for snippets, any unit of the gold snippet)."""
    if corpus.kind == "snippets":
        return corpus.arrays().snippet == query.gold[0][0]
    hit = np.zeros(len(corpus.units), dtype=bool)
    for index, unit in enumerate(corpus.units):
        for path, qualname in query.gold:
            if unit.path == path and (
                unit.qualname == qualname
                or (unit.kind == "class" and qualname.startswith(unit.qualname + "."))
            ):
                hit[index] = True
    return hit
