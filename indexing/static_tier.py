"""The static embedding tier: a table of one vector per word piece, distilled from the serving
transformer, that makes a repository searchable seconds after it is added (phase 1 of an index
run; the transformer's vectors follow in phase 2, `indexing.phases`).

Distillation follows model2vec's recipe (MinishLab, MIT): each vocabulary token is passed through
the transformer between its end and start markers, the three hidden states averaged; the table is
reduced by PCA to 256 dimensions and each row weighted by SIF over a Zipf estimate of its
frequency. We write it here, in numpy over our own ONNX graph, instead of calling
`model2vec.distill`, because that needs torch and transformers at run time; the lookup is a
mean of rows, which needs no library either. On the 2-core machine it takes about 20 s, once per
data dir and transformer.

The table is written into the data dir as the ONNX graphs are (`reporift.model_files.built_file`):
its sha256 recorded beside it and checked at each process's first use, so an altered table is
never served; when none can be built, indexing runs in one phase, as before the tier existed.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

import numpy as np

from indexing.embedding import EmbedderUnavailable, ProgressCallback, get_embedder
from indexing.token_ids import TokenIds
from reporift.model_files import ModelFileError, built_file

logger = logging.getLogger(__name__)

# What the table is made by: part of every static model id, so a new recipe is a new index.
RECIPE = "m2v-pca256-sif4-v1"
PCA_DIMS = 256
SIF = 1e-4
_UNUSED = re.compile(r"\[unused\d+\]")
_BATCH = 512
_MAX_CHARS = 6000


class Distillable(Protocol):
    """A transformer embedder the table can be distilled from (`OnnxMiniLMEmbedder`)."""

    model_id: str
    # The model id the table is named after: the embedder's own, or a student's teacher's.
    table_source_id: str
    tokenizer_file: Path
    # What the table is made from beyond `model_id` (a graph other than the one that embeds
    # documents), part of the table's recipe.
    distil_recipe: dict

    def distilling(self) -> AbstractContextManager: ...  # around the calls to mean_states

    def mean_states(self, ids: np.ndarray) -> np.ndarray: ...


def distil(source: Distillable, *, progress: ProgressCallback | None = None) -> np.ndarray:
    """The static table of `source`: one float32 row per token id (zero rows for the unused
    and special tokens, which a lookup then ignores)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source.tokenizer_file))
    size = tokenizer.get_vocab_size()
    start, end = tokenizer.encode("a").ids[0], tokenizer.encode("a").ids[-1]
    ids = np.arange(size)
    # End marker first, start marker last: model2vec found this order distils better.
    rows = np.stack([np.full(size, end), ids, np.full(size, start)], axis=1)
    states = []
    with source.distilling():
        for begin in range(0, size, _BATCH):
            states.append(source.mean_states(rows[begin : begin + _BATCH]))
            if progress is not None:
                progress(min(begin + _BATCH, size), size)
    states = np.concatenate(states).astype(np.float64)
    special = {tokenizer.token_to_id(t) for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]")}
    keep = np.array(
        [i not in special and not _UNUSED.fullmatch(tokenizer.id_to_token(i) or "") for i in ids]
    )
    kept = states[keep] - states[keep].mean(axis=0)
    _, _, components = np.linalg.svd(kept, full_matrices=False)
    components = components[:PCA_DIMS]
    # The sign of a component is arbitrary; fixing it makes two builds agree.
    signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
    reduced = kept @ (components * signs[:, None]).T
    # Token ids are close to frequency order in this vocabulary: Zipf's law gives each a
    # probability, and SIF weighs frequent pieces down.
    inverse_rank = 1.0 / np.arange(2, len(reduced) + 2)
    probability = inverse_rank / inverse_rank.sum()
    reduced *= (SIF / (SIF + probability))[:, None]
    table = np.zeros((size, reduced.shape[1]), dtype=np.float32)
    table[keep] = reduced
    return table


class StaticEmbedder:
    """Mean of a static table's rows over a text's word pieces, L2-normalised. Thousands of
    units a second on one core, against about 80 for the transformer."""

    # Looking a vector up costs less than reading it from the vector cache.
    worth_caching = False

    def __init__(self, *, table: np.ndarray, tokenizer_file: Path, model_id: str) -> None:
        from tokenizers import Tokenizer

        self.model_id = model_id
        self.dimension = int(table.shape[1])
        self._table = table
        # model2vec's own default length: code units past it are described by their start.
        self._ids = TokenIds(Tokenizer.from_file(str(tokenizer_file)), max_length=512)
        # The tokenizer's truncation state is not thread-safe, nor is the pieces' cache.
        self._lock = threading.Lock()

    def embed(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        # The tokenizer reads a whole text before it truncates: a class's code runs to tens of
        # thousands of characters, of which the first 512 pieces (far fewer than 6,000
        # characters of code) are all that count.
        cut = [text[:_MAX_CHARS] for text in texts]
        with self._lock:
            encoded = self._ids.encode(cut)
        for row, ids in enumerate(encoded):
            if ids:
                np.add.reduce(self._table[ids], axis=0, out=out[row])
        # The mean, as `mean(axis=0)` computes it row by row (the same float32 sum and
        # division), without its per-call overhead.
        out /= np.fromiter(map(len, encoded), dtype=np.float32, count=len(texts)).clip(1)[:, None]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.clip(norms, 1e-12, None)
        if progress is not None:
            progress(len(texts), len(texts))
        return out


STATIC_PREFIX = "static-"


def static_model_id(source_model_id: str) -> str:
    return f"{STATIC_PREFIX}{source_model_id}-{RECIPE}"


def table_file(models_dir: Path, model_id: str) -> Path:
    stem = "".join(c if c.isalnum() or c in "-." else "-" for c in model_id)
    return models_dir / f"{stem}.npy"


def load_or_build(source: Distillable, models_dir: Path) -> StaticEmbedder:
    """The static embedder of `source`, its table distilled into `models_dir` on first use.
    `reporift.model_files.built_file` does the rest, as for the ONNX graphs: one build under a
    lock, its sha256 recorded beside it and checked at each process's first use; an altered
    table is never served, it is distilled again."""
    model_id = static_model_id(source.table_source_id)

    def build(partial: Path) -> None:
        logger.info("distilling the static table of %s", source.model_id)
        with open(partial, "wb") as out:
            np.save(out, distil(source))

    table = built_file(
        table_file(models_dir, model_id),
        build,
        recipe={"source_model_id": source.table_source_id, "recipe": RECIPE} | source.distil_recipe,
    )
    return StaticEmbedder(
        table=np.load(table), tokenizer_file=source.tokenizer_file, model_id=model_id
    )


_tier: dict[str, StaticEmbedder | None] = {}  # transformer model id -> its static tier
_tier_lock = threading.Lock()


def get_static_embedder() -> StaticEmbedder | None:
    """The static tier of the serving transformer, loaded (or distilled) once per process and
    transformer; None when there is none (switched off, a transformer it cannot be distilled
    from, a table that cannot be built)."""
    from django.conf import settings

    if not settings.REPORIFT["STATIC_TIER"]:
        return None
    try:
        source = get_embedder()
    except EmbedderUnavailable:
        return None
    with _tier_lock:
        if source.model_id not in _tier:
            _tier[source.model_id] = _tier_of(source, Path(settings.DATA_DIR) / "models")
        return _tier[source.model_id]


def _tier_of(source, models_dir: Path) -> StaticEmbedder | None:
    if not hasattr(source, "mean_states"):
        logger.info("no static tier: %s cannot be distilled", source.model_id)
        return None
    try:
        return load_or_build(source, models_dir)
    except (ModelFileError, OSError, ValueError) as exc:
        logger.warning("static tier off, indexing runs in one phase: %s", exc)
        return None


def _clear_tier() -> None:
    with _tier_lock:
        _tier.clear()


get_static_embedder.cache_clear = _clear_tier  # type: ignore[attr-defined]


def embedder_for(model_id: str):
    """The embedder whose vectors carry `model_id`: the transformer's or the static tier's.
    Raises EmbedderUnavailable for a model this process does not serve (the configuration
    changed while a run was under way)."""
    transformer = get_embedder()
    if model_id == transformer.model_id:
        return transformer
    static = get_static_embedder()
    if static is not None and model_id == static.model_id:
        return static
    raise EmbedderUnavailable(f"the embedding model {model_id!r} is not served by this process")


def phase1_embedder():
    """What phase 1 of an index run embeds with: the static tier, or the transformer when there
    is no tier (one phase)."""
    return get_static_embedder() or get_embedder()
