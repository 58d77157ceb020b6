"""Phase 2 of an index run: the transformer's vectors for a generation that phase 1 made
searchable with the static tier's (`indexing.static_tier`).

A generation answers with one model's vectors at a time, named by `IndexRun.embedder_model`:
the static model's from its switch, the transformer's from the moment every one of its units has
a transformer vector. Searches embed the query with that same model and read that model's
collections, so no stream ever compares vectors of two models. Each file version records the
models it has vectors of (`FileVersion.embedded`), which makes phase 2 incremental like phase 1:
a version carried over from a generation that finished its phase 2 is not embedded again.

Small changes to a repository that the transformer already serves skip phase 1's answers: when
few units lack transformer vectors, `plan` embeds them before the switch and the generation
answers with the transformer at once (the search quality never steps back for an edit).

A process that ends (an agent closing its MCP session, Ctrl-C, SIGTERM) calls
`stop_and_wait`: phase 2 stops between two batches and hands its claim back (pending again),
so the next process resumes it at once instead of waiting out the lease, and no
thread is left inside the model when the interpreter exits.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from indexing.chunks import lease
from indexing.models import CodeUnit, FileVersion, IndexRun
from indexing.pipeline import bump_run, save_run
from indexing.signals import background_work
from indexing.static_tier import embedder_for
from indexing.unit_vectors import embed_units, mark_embedded
from indexing.vector_mirror import forget_other_generations, prepare_generation, save_graphs

logger = logging.getLogger(__name__)
Phase2 = IndexRun.Phase2

# Set when the process is ending: every phase 2 in it stops at its next batch.
_stopping = threading.Event()
_running: set[int] = set()  # the runs whose phase 2 this process has claimed and works on
_idle = threading.Condition()


class _Stopped(Exception):
    pass


def request_stop() -> None:
    """Every phase 2 of this process stops at its next batch (safe from a signal handler)."""
    _stopping.set()


def stop_and_wait(timeout_s: float = 60.0) -> bool:
    """Stop every phase 2 of this process at a safe point (between batches), each handing its
    claim back; True when none is left running within `timeout_s`. When one is still inside
    the model by then (a batch takes seconds on two cores, and an MCP client waits two before
    it sends SIGTERM), its claim is handed back here and False returned: the caller ends the
    process without waiting (`os._exit`), since the batch's vectors are cached and redone
    cheaply, and a thread inside the model must not meet the interpreter's shutdown."""
    _stopping.set()
    with _idle:
        if _idle.wait_for(lambda: not _running, timeout=timeout_s):
            return True
        claimed = list(_running)
    IndexRun.objects.filter(pk__in=claimed, phase2_status=Phase2.RUNNING).update(
        phase2_status=Phase2.PENDING
    )
    logger.info("phase 2 of runs %s handed back as the process ends", claimed)
    return False


def plan(run: IndexRun) -> None:
    """Before a run's switch: its phase 2 done inline, pending, skipped, or not needed."""
    if not run.phase2_model:
        return
    lacking = versions_lacking(run, run.phase2_model)
    count = CodeUnit.objects.filter(file_version_id__in=lacking).count()
    limit = settings.REPORIFT["PHASE2_MAX_UNITS"]
    total = CodeUnit.objects.filter(file_version__runs=run).count()
    if limit and total > limit:
        save_run(
            run,
            phase2_status=Phase2.SKIPPED,
            phase2_error=f"{total} units, over REPORIFT_PHASE2_MAX_UNITS={limit}",
        )
    elif count == 0 or (
        count <= settings.REPORIFT["PHASE2_INLINE_UNITS"] and _transformer_serves(run)
    ):
        _embed_versions(run, lacking)
        save_run(
            run,
            embedder_model=run.phase2_model,
            phase2_status=Phase2.DONE,
            phase2_units_total=count,
            phase2_units_embedded=count,
            phase2_finished_at=timezone.now(),
        )
    else:
        save_run(run, phase2_status=Phase2.PENDING, phase2_units_total=count)


def _transformer_serves(run: IndexRun) -> bool:
    """Whether the generation being replaced answers with the transformer: only then is a small
    change worth a wait before the switch (a first index answers with phase 1 at once)."""
    previous = run.repository.active_run
    return previous is not None and previous.embedder_model == run.phase2_model


def versions_lacking(run: IndexRun, model_id: str) -> list[int]:
    """The run's file versions without `model_id`'s vectors (filtered here: SQLite has no JSON
    containment lookup)."""
    rows = FileVersion.objects.filter(runs=run).values_list("pk", "embedded")
    return sorted(pk for pk, embedded in rows if model_id not in embedded)


def waiting(run: IndexRun) -> bool:
    """Whether the run's phase 2 waits for a worker: pending, or running on one that stopped
    reporting (a process killed mid-way)."""
    if run.phase2_status == Phase2.PENDING:
        return True
    stale = run.heartbeat_at is not None and run.heartbeat_at < timezone.now() - lease()
    return run.phase2_status == Phase2.RUNNING and stale


def execute(*, run_id: int, on_progress: Callable[[IndexRun], None] | None = None) -> str:
    """Phase 2 of a published run, in this process; returns its final status. Claimed like a
    chunk: a pending run, or a running one whose worker stopped reporting (redelivered). Then,
    unless the process is ending, the run's other background work: after phase 2, so that in a
    process that searches while phase 2 goes on in a thread (no broker) the work done in Python,
    which holds the interpreter, comes minutes after the first answers rather than beside them."""
    status = _claim_and_execute(run_id, on_progress)
    if not _stopping.is_set():
        background_work_of(run_id=run_id)
    return status


def _claim_and_execute(run_id: int, on_progress) -> str:
    stale = timezone.now() - lease()
    with transaction.atomic():
        claimed = IndexRun.objects.filter(
            Q(phase2_status=Phase2.PENDING)
            | Q(phase2_status=Phase2.RUNNING, heartbeat_at__lt=stale),
            pk=run_id,
        ).update(phase2_status=Phase2.RUNNING, heartbeat_at=timezone.now())
    run = IndexRun.objects.select_related("repository").get(pk=run_id)
    if not claimed:
        return run.phase2_status
    with _idle:
        _running.add(run.pk)
    try:
        return _execute(run, on_progress)
    finally:
        with _idle:
            _running.discard(run.pk)
            _idle.notify_all()


def background_work_of(*, run_id: int) -> None:
    """What is derived once from a published generation for the processes that search it
    (indexing.signals.background_work), if it still serves."""
    run = IndexRun.objects.filter(pk=run_id).select_related("repository").first()
    if run is None or run.repository.active_run_id != run.pk:
        return  # gone, or replaced already: its work is the newer run's
    for receiver, outcome in background_work.send_robust(sender=IndexRun, run=run):
        if isinstance(outcome, Exception):
            logger.error("run %s: %s failed: %r", run_id, receiver.__qualname__, outcome)


def _execute(run: IndexRun, on_progress) -> str:
    run_id = run.pk
    try:
        lacking = versions_lacking(run, run.phase2_model)
        save_run(
            run,
            phase2_units_total=CodeUnit.objects.filter(file_version_id__in=lacking).count(),
            phase2_units_embedded=0,
        )
        size = settings.REPORIFT["INDEX_CHUNK_FILES"]
        for start in range(0, len(lacking), size):
            if not _serving(run):
                # A newer generation took over: its own phase 2 embeds what is still missing.
                save_run(run, phase2_status=Phase2.SKIPPED, phase2_error="a newer run replaced it")
                return Phase2.SKIPPED
            _embed_versions(run, lacking[start : start + size])
            if on_progress is not None:
                run.refresh_from_db()
                on_progress(run)
        run.embedder_model = run.phase2_model  # the searches' model once saved: copied first
        _save_graphs(run)
        prepare_generation(run)
        save_run(
            run,
            embedder_model=run.phase2_model,
            phase2_status=Phase2.DONE,
            phase2_finished_at=timezone.now(),
        )
        forget_other_generations(run, repository_id=run.repository_id)
    except _Stopped:
        # What was embedded is kept (marked per chunk, cached by text); the rest waits for the
        # next process, which may claim it at once.
        save_run(run, phase2_status=Phase2.PENDING)
        logger.info("phase 2 of run %s stopped with the process; it resumes later", run_id)
    except (KeyboardInterrupt, SystemExit):
        # Interrupted (Ctrl-C, or a signal turned into an exception): the same, and the
        # interruption goes on up.
        save_run(run, phase2_status=Phase2.PENDING)
        raise
    except Exception as exc:  # the static vectors keep answering; the next run tries again
        logger.exception("phase 2 of run %s failed", run_id)
        save_run(run, phase2_status=Phase2.FAILED, phase2_error=f"{type(exc).__name__}: {exc}")
    return run.phase2_status


def _save_graphs(run: IndexRun) -> None:
    """The generation's vector graphs, built once here for every process that will search it
    (indexing.vector_mirror); a failure only costs those processes the build."""
    from django.conf import settings

    from indexing.store import get_vector_store

    if not settings.REPORIFT["SEARCH"]["VECTOR_GRAPH"]:
        return
    try:
        store = get_vector_store(run.phase2_model)
        if not getattr(store, "in_memory", False):
            save_graphs(run, store, model_id=run.phase2_model)
    except Exception:
        logger.exception("could not save the vector graphs of run %s", run.pk)


def _serving(run: IndexRun) -> bool:
    run.repository.refresh_from_db(fields=["active_run"])
    return run.repository.active_run_id == run.pk


def _embed_versions(run: IndexRun, version_ids: list[int]) -> None:
    if not version_ids:
        return
    embedder = embedder_for(run.phase2_model)
    paths_are_words = run.repository.source_kind != "snippets"
    batch = settings.REPORIFT["EMBED_BATCH_UNITS"]
    units = list(CodeUnit.objects.filter(file_version_id__in=version_ids).order_by("pk"))
    for start in range(0, len(units), batch):
        if _stopping.is_set():
            raise _Stopped
        part = units[start : start + batch]
        embed_units(part, embedder=embedder, paths_are_words=paths_are_words)
        bump_run(run.pk, phase2_units_embedded=len(part))
    mark_embedded(version_ids, embedder.model_id)
