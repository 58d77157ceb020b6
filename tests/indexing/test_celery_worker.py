"""A real Celery worker process consuming from the Redis on 127.0.0.1:6379 indexes a repository
that the test process enqueued on commit."""

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from indexing.models import IndexRun
from indexing.selectors import active_units
from indexing.services import index_run_start, repository_create
from indexing.store import get_vector_store
from reporift.celery import app as celery_app
from tests.conftest import SAMPLE_FILES

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]
ROOT = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/14"


def redis_is_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def worker(settings, tmp_path):
    if not redis_is_up():
        pytest.fail("Redis is not running on 127.0.0.1:6379 (.ci/run starts it)")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    prefix = f"w{uuid.uuid4().hex[:8]}"
    worker_data = tmp_path / "worker-data"
    chroma = worker_data / "chroma"  # where the worker's settings put its embedded Chroma
    # The test process and the worker must agree on the database, the queue and the store.
    settings.REPORIFT = {
        **settings.REPORIFT,
        "VECTOR_STORE": {
            "CLASS": "indexing.store.ChromaVectorStore",
            "OPTIONS": {"path": str(chroma), "collection_prefix": prefix},
        },
    }
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
        "REPORIFT_DATA_DIR": str(worker_data),
        "CELERY_BROKER_URL": BROKER,
        "REPORIFT_CELERY_QUEUE": queue,
        "REPORIFT_CHROMA_COLLECTION_PREFIX": prefix,
    }
    log = open(tmp_path / "worker.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "reporift",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            queue,
            "--without-gossip",
            "--without-mingle",
            "-l",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    keys = ("broker_url", "task_always_eager", "task_default_queue")
    previous = {key: celery_app.conf[key] for key in keys}
    celery_app.conf.update(broker_url=BROKER, task_always_eager=False, task_default_queue=queue)
    try:
        yield process, tmp_path / "worker.log"
    finally:
        celery_app.conf.update(previous)
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def wait_for(run: IndexRun, timeout: float = 180) -> IndexRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            return run
        time.sleep(0.5)
    raise AssertionError(f"run {run.pk} still {run.status}/{run.phase} after {timeout}s")


def test_worker_indexes_through_redis(worker, write_repo):
    process, log = worker
    assert settings.DATABASES["default"]["NAME"].endswith(".sqlite3")
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index_run_start(repository=repository)  # enqueued on commit, to Redis
    run = wait_for(run)
    assert process.poll() is None, log.read_text()[-3000:]
    assert run.status == IndexRun.Status.SUCCEEDED, run.error + log.read_text()[-3000:]
    assert "index_run_task" in log.read_text()
    assert active_units(repository=repository).count() == 7
    # The vectors the worker wrote are readable here, in the same embedded Chroma directory.
    assert get_vector_store().count(repository_id=repository.pk) == 7
