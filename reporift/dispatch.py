"""Sending a background task: to the Celery broker, or, without one (eager Celery, the default),
to a thread beside the caller, so a page answers at once and shows progress instead of waiting
for the work inside its request."""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import connections


def send_task(task, object_id: int) -> None:
    """`task(object_id)` on a worker, or in a thread when there is no broker."""
    if settings.CELERY_TASK_ALWAYS_EAGER and settings.REPORIFT["EAGER_IN_THREAD"]:
        threading.Thread(
            target=_apply_eagerly,
            args=(task, object_id),
            name=f"{task.name}-{object_id}",
            daemon=True,
        ).start()
    else:
        task.delay(object_id)


def _apply_eagerly(task, object_id: int) -> None:
    try:
        task.apply(args=(object_id,))
    finally:
        connections.close_all()
