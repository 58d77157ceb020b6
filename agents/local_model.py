"""The embedded LLM: a local GGUF model served on 127.0.0.1 by llama.cpp through xllamacpp, with
an OpenAI-compatible API (chat completions with token log-probabilities).

Which model: `REPORIFT_LLM_GGUF` (any GGUF file the operator has, alias = its file name), else
`REPORIFT_LLM_EMBEDDED_MODEL` from the catalog (`agents.model_catalog`; the default is chosen by
measurement, see docs/BENCHMARKS.md). Started on first use, shared by the whole process, stopped
at exit. The chat template is the one stored in the GGUF.
"""

from __future__ import annotations

import atexit
import logging
import socket
import threading
import time
from pathlib import Path

from django.conf import settings

from agents.errors import LLMUnavailable
from agents.model_catalog import CATALOG, model_file, operator_gguf


def embedded_model() -> tuple[str, int]:
    """(alias, context size) of the configured embedded model, without loading anything."""
    conf = settings.REPORIFT["LLM"]
    if conf["GGUF"]:
        return operator_gguf(conf["GGUF"])[0], 4096
    alias = conf["EMBEDDED_MODEL"]
    if alias not in CATALOG:
        raise LLMUnavailable(
            f"unknown embedded model {alias!r}; choose from {', '.join(CATALOG)} or set "
            "REPORIFT_LLM_GGUF to a GGUF file"
        )
    return alias, CATALOG[alias].context


def embedded_model_file() -> Path:
    """The GGUF to serve: assembled and checked if it comes from wheels."""
    conf = settings.REPORIFT["LLM"]
    if conf["GGUF"]:
        return operator_gguf(conf["GGUF"])[1]
    alias, _ = embedded_model()
    return model_file(CATALOG[alias], Path(settings.DATA_DIR) / "models")


logger = logging.getLogger(__name__)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedServer:
    def __init__(self, *, path: Path, alias: str, threads: int, context: int) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = context
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = max(threads, 2)
        params.hostnames = ["127.0.0.1"]
        params.port = _free_port()
        params.model_alias = alias
        params.warmup = False
        params.verbosity = 0
        started = time.perf_counter()
        self._server = xllamacpp.Server(params)
        self.base_url = f"http://127.0.0.1:{params.port}/v1"
        self.model_alias = alias
        logger.info(
            "embedded LLM %s on %s (%.1f s to start)",
            alias,
            self.base_url,
            time.perf_counter() - started,
        )

    def stop(self) -> None:
        self._server = None  # the server shuts down when the object is released


_server: EmbeddedServer | None = None
_lock = threading.Lock()


def embedded_server() -> EmbeddedServer:
    global _server
    with _lock:
        if _server is None:
            alias, context = embedded_model()
            path = embedded_model_file()
            try:
                _server = EmbeddedServer(
                    path=path,
                    alias=alias,
                    threads=settings.REPORIFT["LLM"]["THREADS"],
                    context=context,
                )
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
