"""A real third-party repository of over 1,000 functions, cloned through a file:// git URL with
no network, then re-indexed after a one-file edit."""

import importlib
import shutil
from pathlib import Path

import pytest

from indexing.models import CodeUnit, IndexRun
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.store import get_vector_store
from tests.conftest import git_commit_all

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_kombu_from_file_url_then_one_file_edit(tmp_path):
    package = Path(importlib.import_module("kombu").__file__).parent
    origin = tmp_path / "kombu-origin"
    shutil.copytree(package, origin / "kombu", ignore=shutil.ignore_patterns("__pycache__"))
    first_sha = git_commit_all(origin, "import kombu")

    repository = repository_create(name="kombu", source=origin.as_uri())
    first = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert first.status == IndexRun.Status.SUCCEEDED, first.error
    assert first.commit_sha == first_sha
    functions = active_units(repository=repository).exclude(kind=CodeUnit.Kind.CLASS).count()
    assert functions >= 1000
    assert get_vector_store().count(repository_id=repository.pk) == first.units_total

    edited = origin / "kombu" / "utils" / "url.py"
    edited.write_text(edited.read_text() + "\n\ndef added_by_test(x):\n    return x\n")
    git_commit_all(origin, "edit one file")
    url_units = active_units(repository=repository).filter(path="kombu/utils/url.py").count()

    second = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert second.status == IndexRun.Status.SUCCEEDED, second.error
    assert second.files_reused == second.files_total - 1
    assert second.units_embedded == url_units + 1
    assert second.units_total == first.units_total + 1
    assert get_vector_store().count(repository_id=repository.pk) == second.units_total
