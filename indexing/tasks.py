from celery import shared_task

from indexing.models import IndexRun
from indexing.services import index_run_execute


@shared_task(acks_late=True, reject_on_worker_lost=True)
def index_run_task(run_id: int) -> None:
    run = IndexRun.objects.filter(pk=run_id).select_related("repository").first()
    if run is None:  # the repository was deleted while the run waited in the queue
        return
    index_run_execute(run=run)
