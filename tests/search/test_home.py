import pytest

from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


def test_home_lists_indexed_repository(client, write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    page = client.get("/").content.decode()
    assert "shop" in page and "succeeded" in page and ">7<" in page


def test_home_empty_state(client):
    assert "No repository is indexed yet" in client.get("/").content.decode()


def test_progress_fragment_polls_while_running(client, write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    index_run_start(repository=repository, enqueue=False)
    fragment = client.get(f"/repos/{repository.name}/progress/").content.decode()
    assert "hx-trigger" in fragment and "<progress" in fragment
