import pytest
from django.urls import reverse

from indexing.models import IndexRun, Repository
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.store import get_vector_store
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


@pytest.fixture
def indexed(write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    return repository


def test_changelists_render(admin_client, indexed):
    for model in ("repository", "indexrun", "codeunit"):
        response = admin_client.get(reverse(f"admin:indexing_{model}_changelist"))
        assert response.status_code == 200
    run = indexed.runs.first()
    assert (
        admin_client.get(reverse("admin:indexing_indexrun_change", args=[run.pk])).status_code
        == 200
    )


def test_reindex_action(admin_client, indexed, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:indexing_repository_changelist"),
            {"action": "reindex", "_selected_action": [indexed.pk]},
            follow=True,
        )
    assert response.status_code == 200
    assert indexed.runs.count() == 2
    assert indexed.runs.first().status == IndexRun.Status.SUCCEEDED
    # Named as the command line and the pages name runs.
    said = [str(m) for m in response.context["messages"]]
    assert said == [f"shop: run {indexed.runs.first().pk} queued"]
    listed = admin_client.get(reverse("admin:indexing_indexrun_changelist")).content.decode()
    assert f">run {indexed.runs.first().pk}<" in listed


def test_delete_action_removes_vectors(admin_client, indexed):
    assert get_vector_store().count(repository_id=indexed.pk) == 7
    admin_client.post(
        reverse("admin:indexing_repository_changelist"),
        {"action": "delete_with_vectors", "_selected_action": [indexed.pk]},
    )
    assert not Repository.objects.filter(pk=indexed.pk).exists()
    assert get_vector_store().count(repository_id=indexed.pk) == 0


def test_admin_needs_staff(client, indexed, django_user_model):
    user = django_user_model.objects.create_user("plain", password="pw-123456")
    client.force_login(user)
    response = client.get(reverse("admin:indexing_repository_changelist"))
    assert response.status_code == 302
