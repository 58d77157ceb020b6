"""Following a git remote: one sync whatever triggers it, incremental, backing off on failure."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from indexing.models import IndexRun, Repository
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.sync import due_repositories, remote_head, repository_sync
from tests.conftest import git, git_commit_all

pytestmark = pytest.mark.django_db

NEW_FUNCTION = '''

def refund_payment(transaction_id):
    """Give the money of a charged card back."""
    return transaction_id
'''


@pytest.fixture
def origin(git_origin):
    return git_origin


@pytest.fixture
def followed(origin):
    """A git repository indexed at the origin's head (a CLI one: no owner)."""
    repository = repository_create(name="shop", source=f"file://{origin}")
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    repository.refresh_from_db()
    return repository


def push_new_function(origin) -> str:
    path = origin / "shop" / "payments.py"
    path.write_text(path.read_text() + NEW_FUNCTION)
    return git_commit_all(origin, "refunds")


def test_remote_head_is_the_branch_head(origin, followed):
    assert remote_head(followed) == git(origin, "rev-parse", "HEAD")
    followed.ref = "main"
    assert remote_head(followed) == git(origin, "rev-parse", "HEAD")


def test_sync_with_no_new_commit_starts_nothing(followed):
    runs = IndexRun.objects.count()
    outcome = repository_sync(repository=followed, trigger="test")
    assert outcome.state == "up to date"
    assert IndexRun.objects.count() == runs
    followed.refresh_from_db()
    assert followed.last_checked_at is not None and followed.last_check_error == ""


def test_pushed_commit_is_searchable_after_the_sync_command(origin, followed, capsys):
    head = push_new_function(origin)
    call_command("sync", "shop")
    out = capsys.readouterr().out
    assert "shop: started" in out and "succeeded" in out
    followed.refresh_from_db()
    assert followed.active_run.commit_sha == head
    assert followed.active_run.files_reused == 2  # incremental: only payments.py parsed again
    assert active_units(repository=followed).filter(qualname="refund_payment").exists()
    from search.services import search

    response = search(repository=followed, query="give the money of a charged card back")
    assert response.results[0].unit.qualname == "refund_payment"
    call_command("sync", "shop")
    assert "shop: up to date" in capsys.readouterr().out


def test_a_queued_run_coalesces_further_triggers(origin, followed):
    push_new_function(origin)
    first = repository_sync(repository=followed, trigger="one")
    second = repository_sync(repository=followed, trigger="two")
    assert first.state == "started" and second.state == "queued already"
    assert first.run_id == second.run_id
    assert IndexRun.objects.filter(repository=followed).count() == 2


def test_failures_are_recorded_and_back_off(followed, origin):
    import shutil

    Repository.objects.filter(pk=followed.pk).update(sync_every_minutes=10)
    shutil.rmtree(origin)
    before = timezone.now()
    first = repository_sync(repository=followed, trigger="test")
    assert first.state == "failed" and "ls-remote" in first.detail
    followed.refresh_from_db()
    assert followed.sync_failures == 1 and followed.last_check_error
    assert followed.next_check_at >= before + timedelta(minutes=10)
    repository_sync(repository=followed, trigger="test")
    followed.refresh_from_db()
    assert followed.sync_failures == 2
    assert followed.next_check_at >= timezone.now() + timedelta(minutes=19)
    assert followed.active_run.status == "succeeded"  # the old generation still serves


def test_only_due_scheduled_git_repositories_are_synced(followed, write_repo):
    local = repository_create(name="local", source=str(write_repo({"a.py": "x = 1\n"})))
    Repository.objects.filter(pk=local.pk).update(sync_every_minutes=5)
    assert list(due_repositories()) == []  # manual
    Repository.objects.filter(pk=followed.pk).update(sync_every_minutes=5)
    assert list(due_repositories()) == [followed]
    repository_sync(repository=followed, trigger="schedule")
    assert list(due_repositories()) == []  # next check in 5 minutes
    assert list(due_repositories(now=timezone.now() + timedelta(minutes=6))) == [followed]


def test_schedule_set_from_the_command_line(followed, capsys):
    call_command("sync", "shop", "--schedule", "15m")
    followed.refresh_from_db()
    assert followed.sync_every_minutes == 15
    call_command("sync", "shop", "--schedule", "manual")
    followed.refresh_from_db()
    assert followed.sync_every_minutes is None


def test_commit_pinned_repository_never_moves(origin):
    sha = git(origin, "rev-parse", "HEAD")
    repository = repository_create(name="pinned", source=f"file://{origin}", ref=sha)
    assert repository_sync(repository=repository, trigger="test").state == "pinned"


def test_push_during_a_running_run_is_checked_again_after_it(origin, followed):
    push_new_function(origin)
    run = index_run_start(repository=followed)
    IndexRun.objects.filter(pk=run.pk).update(status="running", commit_sha="0" * 40)
    outcome = repository_sync(repository=followed, trigger="webhook")
    assert outcome.state == "queued already"
    assert list(due_repositories()) == [followed]  # although it has no schedule
