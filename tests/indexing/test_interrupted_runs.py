"""An index run from the command line that is interrupted, or killed outright: its run is
recorded as failed (at once, or by the next start on seeing its process gone), the next index
of the same repository completes without waiting, and the previous generation serves all along."""

import importlib
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from indexing.models import IndexRun, Repository
from indexing.run_process import ProcessMark, is_gone, this_process
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES
from tests.support.workers import manage_env

ROOT = Path(__file__).resolve().parents[2]


def _grown(root: Path) -> None:
    """A real package of about 1,900 units beside the sample, so a run lasts long enough to be
    stopped midway."""
    kombu = Path(importlib.import_module("kombu").__file__).parent
    shutil.copytree(kombu, root / "kombu", ignore=shutil.ignore_patterns("__pycache__"))


def _index_in_a_subprocess(root: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "index_repo", str(root), "--name", "shop"],
        cwd=ROOT,
        env=manage_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _running_run(repository: Repository, process: subprocess.Popen) -> IndexRun:
    """The subprocess's run once it is parsing or embedding files."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = repository.runs.filter(status=IndexRun.Status.RUNNING).first()
        if run is not None and run.runner_pid == process.pid and run.files_done > 0:
            return run
        if process.poll() is not None:
            raise AssertionError(f"the index ended first:\n{process.communicate()}")
        time.sleep(0.02)
    process.kill()
    raise AssertionError("the index never got going")


@pytest.fixture
def indexed_shop(write_repo):
    root = write_repo(SAMPLE_FILES)
    repository = repository_create(name="shop", source=str(root))
    first = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert first.status == IndexRun.Status.SUCCEEDED
    _grown(root)
    return root, repository, first


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_killed_cli_index_is_seen_at_once_and_the_next_one_completes(indexed_shop, capsys):
    root, repository, first = indexed_shop
    process = _index_in_a_subprocess(root)
    killed = _running_run(repository, process)
    process.kill()  # SIGKILL: nothing in it can record anything
    process.wait(timeout=30)
    killed.refresh_from_db()
    assert killed.status == IndexRun.Status.RUNNING
    repository.refresh_from_db()
    assert repository.active_run_id == first.pk
    assert active_units(repository=repository).count() == 7

    # At once, not after the 15 minutes a silent worker is given.
    started = time.monotonic()
    call_command("index_repo", str(root), "--name", "shop")
    killed.refresh_from_db()
    assert killed.status == IndexRun.Status.FAILED
    assert f"pid {process.pid}" in killed.error and "ended without finishing" in killed.error
    repository.refresh_from_db()
    latest = repository.runs.first()
    assert latest.pk != killed.pk and latest.status == IndexRun.Status.SUCCEEDED
    assert repository.active_run_id == latest.pk
    assert active_units(repository=repository).filter(path__startswith="kombu/").exists()
    assert time.monotonic() - started < 600


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sigterm_marks_the_cli_run_failed_at_once(indexed_shop):
    root, repository, first = indexed_shop
    process = _index_in_a_subprocess(root)
    stopped = _running_run(repository, process)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode != 0
    assert "interrupted by SIGTERM" in stderr and "previous index keeps serving" in stderr
    stopped.refresh_from_db()
    assert stopped.status == IndexRun.Status.FAILED
    assert stopped.error == "interrupted by SIGTERM"
    repository.refresh_from_db()
    assert repository.active_run_id == first.pk
    assert active_units(repository=repository).count() == 7


@pytest.mark.django_db
def test_a_waiting_index_says_what_it_waits_for_and_leaves_a_dead_run(write_repo, capsys):
    root = write_repo(SAMPLE_FILES)
    repository = repository_create(name="shop", source=str(root))
    # A run left RUNNING by a process that has ended (a finished child's pid on this host).
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    mark = this_process()
    dead = IndexRun.objects.create(
        repository=repository,
        status=IndexRun.Status.RUNNING,
        runner_host=mark.host,
        runner_pid=int(child.stdout),
        runner_started="1",
    )
    call_command("index_repo", str(root), "--name", "shop")
    dead.refresh_from_db()
    assert dead.status == IndexRun.Status.FAILED and "ended without finishing" in dead.error
    assert repository.runs.first().status == IndexRun.Status.SUCCEEDED


def test_a_process_is_named_so_that_a_reused_pid_is_not_taken_for_it():
    mark = this_process()
    assert not is_gone(mark)
    assert is_gone(ProcessMark(mark.host, mark.pid, started="0"))  # same pid, other start
    assert not is_gone(ProcessMark("another-host", 1, started="0"))  # cannot be seen: not gone
