import threading

from celery import shared_task

from reporift.dispatch import send_task

SEEN: list[tuple] = []
DONE = threading.Event()


@shared_task(name="tests.reporift.test_dispatch.record")
def record(*args) -> None:
    SEEN.append((threading.current_thread().name, *args))
    DONE.set()


def test_a_task_is_sent_by_its_name_with_its_arguments(settings):
    settings.REPORIFT = {**settings.REPORIFT, "EAGER_IN_THREAD": False}
    send_task("tests.reporift.test_dispatch.record", 7, "push")
    assert SEEN[-1] == (threading.current_thread().name, 7, "push")


def test_without_a_broker_it_runs_beside_the_caller(settings):
    settings.REPORIFT = {**settings.REPORIFT, "EAGER_IN_THREAD": True}
    DONE.clear()
    send_task("tests.reporift.test_dispatch.record", 8)
    assert DONE.wait(timeout=10)
    assert SEEN[-1] == ("record-8", 8)


def test_with_a_broker_it_is_queued(settings, monkeypatch):
    import indexing.tasks

    settings.CELERY_TASK_ALWAYS_EAGER = False
    queued = []
    monkeypatch.setattr(indexing.tasks.sync_repository_task, "delay", lambda *a: queued.append(a))
    send_task("indexing.tasks.sync_repository_task", 3, "webhook")
    assert queued == [(3, "webhook")]
