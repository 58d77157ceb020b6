"""Sending a background task: to the Celery broker, or, without one (eager Celery, the default),
to a thread beside the caller, so a page answers at once and shows progress instead of waiting
for the work inside its request.

Tasks are named, not imported: a service that queues work is imported by the task that does it,
so it cannot import that task back. The name is the task's dotted path, as Celery registers it."""

from __future__ import annotations

import importlib
import threading

from celery import current_app
from django.conf import settings
from django.db import connections


def send_task(name: str, *args) -> None:
    """The task called `name` with `args`, on a worker, or in a thread when there is no broker."""
    task = _task(name)
    if settings.CELERY_TASK_ALWAYS_EAGER and settings.REPORIFT["EAGER_IN_THREAD"]:
        threading.Thread(
            target=_apply_eagerly,
            args=(task, args),
            name="-".join([name.rpartition(".")[2], *map(str, args)]),
            daemon=True,
        ).start()
    else:
        task.delay(*args)


def _task(name: str):
    # A process that never imported the task's module (a web process, a CLI) has not registered
    # it yet; importing the module registers it.
    if name not in current_app.tasks:
        importlib.import_module(name.rpartition(".")[0])
    return current_app.tasks[name]


def _apply_eagerly(task, args: tuple) -> None:
    try:
        task.apply(args=args)
    finally:
        connections.close_all()
