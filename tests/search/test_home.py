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


def test_home_queries_do_not_grow_with_repositories(
    client, write_repo, django_assert_max_num_queries
):
    for i in range(5):
        repository = repository_create(
            name=f"r{i}", source=str(write_repo({"a.py": "def f(): pass\n"}))
        )
        index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    with django_assert_max_num_queries(6):
        page = client.get("/").content.decode()
    assert all(f">r{i}<" in page for i in range(5))
