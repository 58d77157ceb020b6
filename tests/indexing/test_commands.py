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
