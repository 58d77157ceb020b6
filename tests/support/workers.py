"""A real Celery worker process on the local Redis, sharing the test database and vector store."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from indexing.models import IndexRun
from reporift.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/14"


def redis_is_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


def database_url() -> str:
    db = settings.DATABASES["default"]
    if "sqlite" in db["ENGINE"]:
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


class Worker:
    def __init__(self, queue: str, env: dict, log: Path) -> None:
        self.queue, self.env, self.log = queue, env, log
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self._log_file = open(self.log, "a")  # noqa: SIM115
        self.process = subprocess.Popen(
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
                self.queue,
                "--without-gossip",
                "--without-mingle",
                "-l",
                "INFO",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._log_file.close()

    def output(self) -> str:
        return self.log.read_text()[-4000:]


@contextmanager
def celery_worker(settings_fixture, tmp_path: Path):
    """Start a worker; the test process enqueues to the same Redis queue."""
    with celery_workers(settings_fixture, tmp_path, count=1) as workers:
        yield workers[0]


@contextmanager
def celery_workers(settings_fixture, tmp_path: Path, count: int, extra_env: dict | None = None):
    """Start `count` workers on one queue (each its own process, one task at a time)."""
    if not redis_is_up():
        raise AssertionError("Redis is not running on 127.0.0.1:6379 (.ci/run starts it)")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    prefix = f"w{uuid.uuid4().hex[:8]}"
    worker_data = tmp_path / "worker-data"
    settings_fixture.REPORIFT = {
        **settings_fixture.REPORIFT,
        "VECTOR_STORE": {
            "CLASS": "indexing.store.ChromaVectorStore",
            # Where the worker's settings put its embedded Chroma.
            "OPTIONS": {"path": str(worker_data / "chroma"), "collection_prefix": prefix},
        },
        "STATIC_VECTOR_STORE": {
            "CLASS": "indexing.segment_store.SegmentVectorStore",
            "OPTIONS": {"path": str(worker_data / "static-vectors")},
        },
    }
    # The models the session prepared (ONNX graphs, the static table) serve the workers too.
    worker_data.mkdir(parents=True, exist_ok=True)
    if (settings_fixture.DATA_DIR / "models").is_dir():
        (worker_data / "models").symlink_to(settings_fixture.DATA_DIR / "models")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        "DATABASE_URL": database_url(),
        "REPORIFT_DATA_DIR": str(worker_data),
        "CELERY_BROKER_URL": BROKER,
        "REPORIFT_CELERY_QUEUE": queue,
        "REPORIFT_CHROMA_COLLECTION_PREFIX": prefix,
        **(extra_env or {}),
    }
    keys = ("broker_url", "task_always_eager", "task_default_queue")
    previous = {key: celery_app.conf[key] for key in keys}
    celery_app.conf.update(broker_url=BROKER, task_always_eager=False, task_default_queue=queue)
    _reset_connections()
    workers = [Worker(queue, env, tmp_path / f"worker{n}.log") for n in range(count)]
    for worker in workers:
        worker.start()
    try:
        yield workers
    finally:
        celery_app.conf.update(previous)
        _reset_connections()
        for worker in workers:
            worker.stop()


def _reset_connections() -> None:
    """Celery caches its connection and producer pools with the broker URL of the moment they
    were made: an earlier eager task made them with none (Celery's default, amqp://localhost).
    Switching brokers in-process means dropping them."""
    from kombu import pools

    pools.reset()  # kombu's process-wide registry of producer pools, keyed by connection
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def wait_for(
    run: IndexRun,
    condition,
    timeout: float = 60,
    worker: Worker | None = None,
    poll: float = 0.2,
) -> IndexRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if condition(run):
            return run
        time.sleep(poll)
    log = worker.output() if worker else ""
    raise AssertionError(f"run {run.pk} is {run.status}/{run.phase} after {timeout}s\n{log}")


def manage_env() -> dict[str, str]:
    """The environment of a `manage.py` subprocess that shares this test's database, vector
    collections and static vectors."""
    from django.conf import settings

    vector_store = settings.REPORIFT["VECTOR_STORE"]["OPTIONS"]
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        "DATABASE_URL": database_url(),
        "REPORIFT_DATA_DIR": str(Path(vector_store["path"]).parent),
        "REPORIFT_CHROMA_COLLECTION_PREFIX": vector_store["collection_prefix"],
        "REPORIFT_STATIC_VECTORS_DIR": settings.REPORIFT["STATIC_VECTOR_STORE"]["OPTIONS"]["path"],
    }
