"""Celery tasks of an index run: thin, each calling one step (`indexing.pipeline`). Chunks go
to the queue, so any number of workers share a run; every task acknowledges late, so a task
whose worker dies is delivered again (and finds its work half done or not: it copes)."""

from celery import shared_task

from indexing.chunks import ChunkOutcome
from indexing.models import IndexChunk, IndexRun, Repository
from indexing.phase2 import execute as phase2_execute
from indexing.services import index_chunk_execute, index_run_prepare, index_run_publish
from indexing.sync import repository_sync, sync_due

LATE = {"acks_late": True, "reject_on_worker_lost": True}


@shared_task(**LATE)
def index_run_task(run_id: int) -> None:
    run = IndexRun.objects.filter(pk=run_id).select_related("repository").first()
    if run is None:  # the repository was deleted while the run waited in the queue
        return
    chunk_ids = index_run_prepare(run=run)
    if chunk_ids is None:
        return
    if not chunk_ids:  # nothing new to parse
        publish_run_task.delay(run_id)
    for chunk_id in chunk_ids:
        index_chunk_task.delay(chunk_id)


@shared_task(bind=True, max_retries=None, **LATE)
def index_chunk_task(self, chunk_id: int) -> None:
    outcome = index_chunk_execute(chunk_id=chunk_id)
    if outcome == ChunkOutcome.BUSY:
        # Another worker holds it and is alive. Look again later rather than drop the task:
        # if that worker dies, this delivery is the one that finishes the chunk.
        raise self.retry(countdown=30)
    if outcome == ChunkOutcome.LAST:
        run_id = IndexChunk.objects.values_list("run_id", flat=True).get(pk=chunk_id)
        publish_run_task.delay(run_id)


@shared_task(**LATE)
def publish_run_task(run_id: int) -> None:
    run = IndexRun.objects.filter(pk=run_id).select_related("repository").first()
    if run is not None and index_run_publish(run=run):
        phase2_task.delay(run_id)


@shared_task(**LATE)
def phase2_task(run_id: int) -> None:
    phase2_execute(run_id=run_id)


@shared_task
def sync_repository_task(repository_id: int, trigger: str) -> None:
    repository = Repository.objects.filter(pk=repository_id).first()
    if repository is not None:  # deleted while the task waited
        repository_sync(repository=repository, trigger=trigger)


@shared_task
def sync_due_task() -> None:
    """Celery beat's tick (CELERY_BEAT_SCHEDULE): the schedule itself is per repository, in the
    database, so beat needs no state of its own."""
    sync_due(trigger="schedule")
