"""Indexing verbs: create a repository, start and execute index runs, delete.

Callers (views, admin, the CLI, Celery tasks) go through these functions; none of them touches
the models' write paths directly.
"""

from __future__ import annotations

import logging
import shutil
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path, PurePath
from typing import Literal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from indexing.chunks import ChunkOutcome, process_chunk
from indexing.generations import discard_unpublished_versions
from indexing.git_urls import GitURLRefused, check_user_git_url
from indexing.lexical import drop_lexical_index
from indexing.models import IndexChunk, IndexRun, Repository
from indexing.phase2 import execute as phase2_execute
from indexing.phase2 import plan as phase2_plan
from indexing.pipeline import prepare_run, publish_run
from indexing.repository_names import name_problem
from indexing.run_process import ProcessMark, interruption, is_gone, this_process
from indexing.selectors import vector_models
from indexing.sources import (
    ArchiveSource,
    GitSource,
    LocalDirectorySource,
    Source,
    SourceError,
    SourceLimits,
)
from indexing.store import get_vector_store
from indexing.unit_cache import carry_over
from indexing.vector_mirror import drop_saved_graphs, forget_other_generations, prepare_generation
from reporift.dispatch import send_task

logger = logging.getLogger(__name__)

# A running run that has not reported progress for this long lost its worker.
STALE_RUN_AFTER = timedelta(minutes=15)


class IndexingError(Exception):
    """A request to index cannot be carried out; the message is meant for the user."""


def source_limits() -> SourceLimits:
    conf = settings.REPORIFT
    return SourceLimits(
        max_archive_files=conf["MAX_ARCHIVE_FILES"],
        max_archive_bytes=conf["MAX_ARCHIVE_BYTES"],
        max_compression_ratio=conf["MAX_COMPRESSION_RATIO"],
        max_file_bytes=conf["MAX_FILE_BYTES"],
        git_timeout_s=conf["GIT_TIMEOUT_S"],
    )


def guess_source_kind(source: str) -> str:
    lowered = source.lower()
    if lowered.startswith(("http://", "https://", "git://", "ssh://", "file://", "git@")):
        return Repository.SourceKind.GIT
    if lowered.endswith((".zip", ".tar.gz", ".tgz", ".tar")) and Path(source).is_file():
        return Repository.SourceKind.ARCHIVE
    return Repository.SourceKind.LOCAL


def source_for(repository: Repository) -> Source:
    limits = source_limits()
    kind = repository.source_kind
    if kind == Repository.SourceKind.GIT:
        # Repositories with an owner came from the web or the API; the CLI's have none.
        return GitSource(
            url=repository.source,
            ref=repository.ref,
            limits=limits,
            user_submitted=repository.owner_id is not None,
        )
    if kind == Repository.SourceKind.ARCHIVE:
        return ArchiveSource(path=Path(repository.source), limits=limits)
    if kind in (Repository.SourceKind.LOCAL, Repository.SourceKind.SNIPPETS):
        return LocalDirectorySource(path=Path(repository.source))
    raise IndexingError(f"unknown source kind {kind!r}")


def repository_create(
    *,
    name: str,
    source: str,
    source_kind: str | None = None,
    ref: str = "",
    owner=None,
    is_public: bool = True,
) -> Repository:
    kind = source_kind or guess_source_kind(source)
    if kind == Repository.SourceKind.LOCAL:
        source = str(Path(source).expanduser().resolve())
    repository = Repository(
        name=name, source_kind=kind, source=source, ref=ref, owner=owner, is_public=is_public
    )
    repository.full_clean()
    repository.save()
    return repository


def repository_submit(
    *,
    user,
    name: str,
    git_url: str = "",
    ref: str = "",
    archive: UploadedFile | None = None,
    is_public: bool = True,
) -> IndexRun:
    """A user's request (web page or API) to index a git URL or an uploaded archive: checked,
    created with the user as owner, and queued. IndexingError says what is wrong."""
    git_url = git_url.strip()
    # The name first: nothing is resolved or stored for a request that cannot be created.
    problem = name_problem(name)
    if problem:
        raise IndexingError(problem)
    if bool(git_url) == bool(archive):
        raise IndexingError("give either a git URL or an archive, not both")
    if Repository.objects.filter(name=name).exists():
        raise IndexingError(f"a repository named {name!r} exists")
    try:
        if archive is not None:
            repository = repository_create_from_upload(
                name=name, upload=archive, owner=user, is_public=is_public
            )
        else:
            check_user_git_url(git_url)
            repository = repository_create(
                name=name,
                source=git_url,
                source_kind=Repository.SourceKind.GIT,
                ref=ref.strip(),
                owner=user,
                is_public=is_public,
            )
    except ValidationError as exc:
        raise IndexingError("; ".join(exc.messages)) from exc
    except GitURLRefused as exc:
        raise IndexingError(str(exc)) from exc
    return index_run_start(repository=repository)


def index_run_start(*, repository: Repository, enqueue: bool = True) -> IndexRun:
    """Queue an index run, or return the one already queued or running (runs never overlap).

    With `enqueue=False` the caller executes the run itself (the CLI does, to draw progress)."""
    _fail_stale_runs(repository=repository)
    existing = repository.runs.filter(
        status__in=[IndexRun.Status.QUEUED, IndexRun.Status.RUNNING]
    ).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            run = IndexRun.objects.create(repository=repository)
            if enqueue:
                transaction.on_commit(lambda: _enqueue(run.pk))
    except IntegrityError:
        # Another request queued one between our check and insert: that one wins.
        return repository.runs.get(status__in=[IndexRun.Status.QUEUED, IndexRun.Status.RUNNING])
    return run


def _enqueue(run_id: int) -> None:
    send_task("indexing.tasks.index_run_task", run_id)


def repository_create_from_upload(
    *, name: str, upload: UploadedFile, owner=None, is_public: bool = True
) -> Repository:
    """Store an uploaded archive under the data dir and create its repository."""
    limit = settings.REPORIFT["MAX_UPLOAD_BYTES"]
    if upload.size is not None and upload.size > limit:
        raise IndexingError(f"the archive is {upload.size} bytes; the limit is {limit}")
    suffix = "".join(PurePath(upload.name or "upload").suffixes[-2:]).lower()
    if suffix not in (".zip", ".tar.gz", ".tgz", ".tar"):
        raise IndexingError("upload a .zip, .tar.gz, .tgz or .tar archive")
    directory = Path(settings.MEDIA_ROOT) / "archives"
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{uuid.uuid4().hex}{suffix}"
    with open(target, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    try:
        return repository_create(
            name=name,
            source=str(target),
            source_kind=Repository.SourceKind.ARCHIVE,
            owner=owner,
            is_public=is_public,
        )
    except Exception:
        target.unlink(missing_ok=True)
        raise


def _fail_stale_runs(*, repository: Repository) -> None:
    cutoff = timezone.now() - STALE_RUN_AFTER
    for run in repository.runs.filter(status=IndexRun.Status.RUNNING, heartbeat_at__lt=cutoff):
        run_fail(run=run, error="the worker stopped reporting progress (lost or killed)")
    unfinished = repository.runs.filter(
        status__in=[IndexRun.Status.QUEUED, IndexRun.Status.RUNNING], runner_pid__isnull=False
    )
    for run in unfinished:
        if run_process_gone(run):
            run_fail(
                run=run,
                error=f"the process running it (pid {run.runner_pid} on {run.runner_host}) ended "
                "without finishing it (killed, or the machine stopped)",
            )


def run_process_gone(run: IndexRun) -> bool:
    """Whether the process that runs `run` in itself has ended (False when unknown)."""
    if run.runner_pid is None:
        return False
    return is_gone(ProcessMark(run.runner_host, run.runner_pid, run.runner_started))


def index_run_execute(
    *,
    run: IndexRun,
    on_progress: Callable[[IndexRun], None] | None = None,
    phase2: Literal["now", "background", "later"] = "now",
) -> IndexRun:
    """Do all of one run in this process (the CLI, and runs without a broker). Never raises for
    bad input: a failed run records its error and the previous generation keeps serving.

    Phase 2 (the transformer's vectors, `indexing.phase2`), when the run has one pending after
    its switch: done here before returning ("now"), queued ("background": a thread without a
    broker), or left pending for the caller ("later").

    Interrupted (Ctrl-C, or SIGTERM where the caller turned it into an exception with
    `indexing.run_process.signals_interrupt`), the run is marked failed at once and the
    interruption goes on up; killed outright, the process it records lets the next start see
    that it is gone."""
    mark = this_process()
    IndexRun.objects.filter(pk=run.pk).update(
        runner_host=mark.host, runner_pid=mark.pid, runner_started=mark.started
    )
    try:
        chunk_ids = index_run_prepare(run=run)
        for chunk_id in chunk_ids or []:
            outcome = index_chunk_execute(chunk_id=chunk_id)
            if on_progress is not None:
                run.refresh_from_db()
                on_progress(run)
            if outcome == ChunkOutcome.STOPPED:
                break
    except (KeyboardInterrupt, SystemExit) as exc:
        run.refresh_from_db()
        if not run.is_finished:
            run_fail(run=run, error=interruption(exc))
        raise
    run.refresh_from_db()
    if run.phase == IndexRun.Phase.SWITCHING and index_run_publish(run=run):
        if phase2 == "now":
            phase2_execute(run_id=run.pk, on_progress=on_progress)
        elif phase2 == "background":
            phase2_start(run=run)
    run.refresh_from_db()
    if on_progress is not None:
        on_progress(run)
    return run


def index_run_prepare(*, run: IndexRun) -> list[int] | None:
    """Step 1 of a run (`indexing.pipeline`); its chunk ids, or None when the run is over
    (finished already, or failed here with its error recorded)."""
    run.refresh_from_db()
    if run.is_finished:
        return None  # a duplicate delivery of a finished task
    workdir = Path(settings.REPORIFT["WORK_DIR"]) / f"run-{run.pk}"
    if run.status == IndexRun.Status.RUNNING:
        # Redelivered after a worker died mid-run: start over from a clean slate.
        discard_unpublished_versions(run=run)
    run.status = IndexRun.Status.RUNNING
    run.started_at = run.heartbeat_at = timezone.now()
    run.save(update_fields=["status", "started_at", "heartbeat_at"])
    try:
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True, exist_ok=True)
        return prepare_run(run=run, source=source_for(run.repository), workdir=workdir)
    except (SourceError, IndexingError) as exc:
        run_fail(run=run, error=str(exc))
    except Exception as exc:
        logger.exception("index run %s failed", run.pk)
        run_fail(run=run, error=f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return None


def index_chunk_execute(*, chunk_id: int) -> ChunkOutcome:
    """Step 2 for one chunk. A chunk that fails unexpectedly fails its run."""
    try:
        return process_chunk(chunk_id)
    except Exception as exc:
        logger.exception("chunk %s failed", chunk_id)
        chunk = IndexChunk.objects.select_related("run").filter(pk=chunk_id).first()
        if chunk is not None:
            run_fail(run=chunk.run, error=f"{type(exc).__name__}: {exc}")
        return ChunkOutcome.STOPPED


def index_run_publish(*, run: IndexRun) -> bool:
    """Step 3, with phase 2 planned before the switch. Idempotent: a finished run, or one not
    ready to switch, is left alone. True when phase 2 is pending after the switch."""
    run.refresh_from_db()
    if run.status != IndexRun.Status.RUNNING or run.phase != IndexRun.Phase.SWITCHING:
        return False
    try:
        phase2_plan(run)
        # A process that searches as it indexes (a server without a broker) answers the new
        # generation's first searches from memory, as it answered the old one's.
        prepare_generation(run)
        carry_over(run, previous=Repository.objects.get(pk=run.repository_id).active_run)
        publish_run(run=run)
        forget_other_generations(run, repository_id=run.repository_id)
    except Exception as exc:
        logger.exception("publishing run %s failed", run.pk)
        run_fail(run=run, error=f"{type(exc).__name__}: {exc}")
        return False
    return run.phase2_status == IndexRun.Phase2.PENDING


def phase2_start(*, run: IndexRun) -> None:
    """Queue a published run's phase 2: on a worker, or beside the caller without a broker."""
    send_task("indexing.tasks.phase2_task", run.pk)


def run_fail(*, run: IndexRun, error: str) -> None:
    IndexRun.objects.filter(pk=run.pk).update(
        status=IndexRun.Status.FAILED, error=error[:5000], finished_at=timezone.now()
    )
    try:
        discard_unpublished_versions(run=run)
    except Exception:  # the store may be the thing that failed; the next run collects
        logger.exception("could not clean up after failed run %s", run.pk)


def repository_delete(*, repository: Repository) -> None:
    archive = Path(repository.source) if repository.source_kind == "archive" else None
    for run in repository.runs.only("pk", "created_at"):
        drop_lexical_index(run)
        drop_saved_graphs(run)
    # The serving store too: versions indexed before models were recorded have its vectors.
    for model_id in {*vector_models(repository=repository), None}:
        get_vector_store(model_id).delete_repository(repository.pk)
    repository.delete()
    if archive is not None and archive.is_relative_to(Path(settings.MEDIA_ROOT)):
        archive.unlink(missing_ok=True)
