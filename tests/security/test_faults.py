"""Faults: a worker killed mid-run, a vector store that is down, index runs that collide."""

import importlib
import shutil
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.utils import timezone

from indexing.models import FileVersion, IndexRun
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.store import get_vector_store
from search.services import search
from tests.conftest import SAMPLE_FILES
from tests.support.workers import celery_worker, wait_for


@pytest.mark.slow
@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_run_leaves_the_old_generation_serving(settings, tmp_path, write_repo):
    root = write_repo(SAMPLE_FILES)
    with celery_worker(settings, tmp_path) as worker:
        repository = repository_create(name="shop", source=str(root))
        first = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        assert first.status == "succeeded"
        # Make the next run long: add a real package of about 1,900 units.
        kombu = Path(importlib.import_module("kombu").__file__).parent
        shutil.copytree(kombu, root / "kombu", ignore=shutil.ignore_patterns("__pycache__"))

        run = index_run_start(repository=repository)
        run = wait_for(
            run, lambda r: r.phase == "embedding" and r.units_embedded > 0, worker=worker
        )
        worker.kill()  # SIGKILL in the middle of embedding

        run.refresh_from_db()
        repository.refresh_from_db()
        assert run.status == IndexRun.Status.RUNNING  # nobody could record anything
        assert repository.active_run_id == first.pk
        assert active_units(repository=repository).count() == 7
        hits = search(repository=repository, query="retry failed http calls", k=3)
        assert hits.results[0].unit.qualname == "retry_http_call"
        assert not any(r.unit.path.startswith("kombu/") for r in hits.results)

        # Once its heartbeat is stale, the next request fails it and cleans what it wrote.
        IndexRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        replacement = index_run_start(repository=repository, enqueue=False)
        run.refresh_from_db()
        assert run.status == IndexRun.Status.FAILED and "lost" in run.error
        assert replacement.pk != run.pk
        assert not FileVersion.objects.filter(created_by=run).exists()
        assert get_vector_store().count(repository_id=repository.pk) == 7
        IndexRun.objects.filter(pk=replacement.pk).delete()


@pytest.mark.django_db
def test_chroma_server_down_degrades_to_lexical(settings, write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    from indexing.store import get_vector_store as cached

    settings.REPORIFT = {
        **settings.REPORIFT,
        "VECTOR_STORE": {
            "CLASS": "indexing.store.ChromaVectorStore",
            "OPTIONS": {"host": "127.0.0.1", "port": 9, "model_id": "x"},
        },
    }
    cached.cache_clear()
    response = search(repository=repository, query="retry http call", k=3)
    assert response.results[0].unit.qualname == "retry_http_call"
    assert response.results[0].streams == ["S4"]
    assert any("S1 failed" in n and "Chroma" in n for n in response.notices)


@pytest.mark.django_db(transaction=True)
def test_simultaneous_index_requests_make_one_run(write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    runs, errors = [], []
    barrier = threading.Barrier(4)

    def request():
        try:
            barrier.wait()
            runs.append(index_run_start(repository=repository, enqueue=False).pk)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=request) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(set(runs)) == 1
    assert IndexRun.objects.filter(repository=repository).count() == 1
