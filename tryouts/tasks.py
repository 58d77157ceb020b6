from celery import shared_task

from tryouts.services import example_execute


@shared_task(acks_late=True, reject_on_worker_lost=True)
def example_task(example_id: int) -> None:
    example_execute(example_id=example_id)
