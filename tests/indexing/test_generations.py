"""Deleting units takes their vectors with them, under every model that may hold them: also a
model their versions do not record yet (a chunk whose worker died between storing vectors and
marking its versions, which the chunk's next attempt deletes)."""

import pytest

from indexing.generations import delete_units
from indexing.models import CodeUnit, FileVersion, IndexRun
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.static_tier import get_static_embedder
from indexing.store import get_vector_store
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


def test_vectors_of_a_model_the_versions_do_not_record_yet_go_too(write_repo):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == IndexRun.Status.SUCCEEDED
    static = get_vector_store(get_static_embedder().model_id)
    units = CodeUnit.objects.filter(repository=repository)
    stored = static.count(repository_id=repository.pk)
    assert stored == units.count() > 0
    # As a dead worker leaves them: vectors stored, versions not yet marked.
    FileVersion.objects.filter(repository=repository).update(embedded=[])
    one_file = units.filter(path=units.first().path)
    removed = one_file.count()
    delete_units(one_file)
    assert static.count(repository_id=repository.pk) == stored  # orphans without the hint
    delete_units(units.all(), also_models=[get_static_embedder().model_id])
    assert not units.exists()
    assert static.count(repository_id=repository.pk) == removed  # the first file's orphans only
