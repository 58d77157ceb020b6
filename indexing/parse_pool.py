"""Files parsed in worker processes while the indexing process embeds and writes what is parsed.

Parsing (tree-sitter, and the Python around it that makes units of its tree) was 40% of a first
index's time, done by one process on one core while the other waited; the embedding and the
writes that follow a parse hold the same interpreter. A chunk's files are therefore handed to a
pool of forked processes, one per core, whose parsed files come back in file order as they are
ready: the parent embeds and writes one batch while the children parse the next.
`concurrent.futures` is the pool (not `multiprocessing.Pool`, whose `imap` waits for ever on a
task whose process died): a child killed by a hostile file breaks the pool, which is dropped, and
the files it had not returned are parsed here instead, as they were before the pool existed.

Off (in-process) where forking does not fit: `REPORIFT_PARSE_PROCESSES=1`, a machine of one
core, a chunk of a few files (the round trips cost more than they save), a daemonic process
(which may not have children), and a Celery worker's child (the operator sized the workers to
the cores already).
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

from indexing.parsing import ParsedFile, parse_source

logger = logging.getLogger(__name__)

MIN_FILES = 8  # fewer files are parsed in process
MAX_PROCESSES = 4  # beyond this the parent, which embeds and writes alone, is the bottleneck
_CHUNKSIZE = 2  # files per round trip: large files take long alone, small ones are many

_pool: Executor | None = None
_lock = threading.Lock()
_in_celery_worker = False


def parsed_in_order(files: Sequence[tuple[bytes, str]]) -> Iterator[ParsedFile]:
    """`parse_source(data, path=path)` of each `(data, path)`, in order, in parallel where a
    pool is worth it."""
    pool = _shared_pool() if len(files) >= MIN_FILES else None
    if pool is None:
        for data, path in files:
            yield parse_source(data, path=path)
        return
    done = 0
    try:
        for parsed in pool.map(_parse, files, chunksize=_CHUNKSIZE):
            done += 1
            yield parsed
    except BrokenProcessPool:
        logger.warning(
            "a parsing process died (%d of %d files parsed); the rest are parsed in process",
            done,
            len(files),
        )
        _drop(pool)
        for data, path in files[done:]:
            yield parse_source(data, path=path)


def processes() -> int:
    """How many parsing processes a pool has here; 1 means none (parse in process)."""
    configured = settings.REPORIFT["PARSE_PROCESSES"]
    if configured:
        return max(1, configured)
    if _in_celery_worker or multiprocessing.current_process().daemon:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, MAX_PROCESSES)


def in_celery_worker() -> None:
    """Called in each Celery worker process: its runs parse in process."""
    global _in_celery_worker
    _in_celery_worker = True


def _parse(job: tuple[bytes, str]) -> ParsedFile:
    data, path = job
    return parse_source(data, path=path)


def _shared_pool() -> Executor | None:
    global _pool
    count = processes()
    if count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    with _lock:
        if _pool is None:
            # Forked, so the children start with the grammars and queries the parent loaded;
            # they touch no database connection, vector store or model of the parent's.
            _pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"))
        return _pool


def _drop(pool: Executor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def _shutdown() -> None:
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
