"""A real Celery worker process consuming from the Redis on 127.0.0.1:6379 indexes a repository
that the test process enqueued on commit."""

import pytest

from indexing.models import IndexRun
from indexing.selectors import active_units
from indexing.services import index_run_start, repository_create
from indexing.static_tier import get_static_embedder
from indexing.store import get_vector_store
from tests.conftest import SAMPLE_FILES
from tests.support.workers import celery_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]


def test_worker_indexes_through_redis(settings, tmp_path, write_repo):
    with celery_worker(settings, tmp_path) as worker:
        repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
        run = index_run_start(repository=repository)  # enqueued on commit, to Redis
        run = wait_for(run, lambda r: r.is_finished, worker=worker)
        assert run.status == IndexRun.Status.SUCCEEDED, run.error + worker.output()
        assert "index_run_task" in worker.output()
        # The run answers with phase 1 once it succeeds; the transformer's vectors come with
        # phase 2, a second task on the same worker, so the test waits for that one too.
        run = wait_for(run, lambda r: r.phase2_status not in ("pending", "running"), worker=worker)
        assert run.phase2_status == IndexRun.Phase2.DONE, run.phase2_error + worker.output()
        assert "phase2_task" in worker.output()
    assert active_units(repository=repository).count() == 7
    # The vectors the worker wrote are readable here, in the same embedded Chroma directory.
    for store in (get_vector_store(), get_vector_store(get_static_embedder().model_id)):
        assert store.count(repository_id=repository.pk) == 7
