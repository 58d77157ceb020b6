import pytest

from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES


@pytest.fixture
def shop(db, write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    repository.refresh_from_db()
    return repository
