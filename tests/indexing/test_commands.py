import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from indexing.models import Repository
from indexing.selectors import active_units
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_index_repo_indexes_and_reindexes(write_repo, capsys):
    root = write_repo(SAMPLE_FILES)
    call_command("index_repo", str(root), "--name", "shop")
    out = capsys.readouterr().out
    assert "indexed shop: 7 units in 3 files" in out
    repository = Repository.objects.get(name="shop")
    assert active_units(repository=repository).count() == 7

    call_command("index_repo", str(root), "--name", "shop")
    assert "3 files unchanged, 0 units embedded" in capsys.readouterr().out


def test_index_repo_counts_in_words_for_one_file_and_for_two(write_repo, capsys):
    one = write_repo({"greet.py": "def greet(name):\n    return 'hi ' + name\n"})
    call_command("index_repo", str(one), "--name", "one")
    assert capsys.readouterr().out.splitlines()[0] == (
        "indexed one: 1 unit in 1 file (0 files unchanged, 1 unit embedded, "
        "0 files with parse errors), no commit"
    )

    two = write_repo(
        {
            "greet.py": "def greet(name):\n    return 'hi ' + name\n",
            "part.py": "def part(name):\n    return 'bye ' + name\n",
        }
    )
    call_command("index_repo", str(two), "--name", "two")
    call_command("index_repo", str(two), "--name", "two")
    assert capsys.readouterr().out.splitlines()[-1] == (
        "indexed two: 2 units in 2 files (2 files unchanged, 0 units embedded, "
        "0 files with parse errors), no commit"
    )


def test_runs_are_named_one_way_on_every_surface(write_repo, capsys):
    call_command("index_repo", str(write_repo(SAMPLE_FILES)), "--name", "shop")
    run = Repository.objects.get(name="shop").runs.first()
    assert run.label == f"run {run.pk}"
    assert str(run) == f"shop run {run.pk} (succeeded)"
    call_command("phase2", "shop")
    assert f"phase 2 of run {run.pk}:" in capsys.readouterr().out

    with pytest.raises(CommandError) as failed:
        call_command("index_repo", str(write_repo({}) / "gone"), "--name", "gone")
    failed_run = Repository.objects.get(name="gone").runs.first()
    assert str(failed.value).startswith(f"run {failed_run.pk} of gone failed: ")


def test_index_repo_failure_raises_with_reason(tmp_path):
    with pytest.raises(CommandError, match="not a directory"):
        call_command("index_repo", str(tmp_path / "missing"), "--name", "missing")


def test_index_repo_exit_code_is_nonzero_on_failure(tmp_path):
    env = {
        **os.environ,
        "REPORIFT_DATA_DIR": str(tmp_path / "data"),
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
    }
    env.pop("REPORIFT_TEST_SQLITE_FILE", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    done = subprocess.run(
        [sys.executable, "manage.py", "index_repo", str(tmp_path / "nowhere"), "--name", "x"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "not a directory" in done.stderr


@pytest.mark.django_db
def test_index_repo_of_a_tree_with_nothing_readable_is_not_a_success(write_repo):
    root = write_repo({"notes.bin": "\x00\x01\x02", "image.png": "\x89PNG"})
    with pytest.raises(CommandError, match=r"no files RepoRift can read .*\(0 units\)") as failed:
        call_command("index_repo", str(root), "--name", "empty")
    assert failed.value.returncode == 1
