"""One run spread over two real Celery workers on the local Redis; one is killed in the middle
of a chunk. The run still completes, with exactly the right units: the dead worker's chunk is
taken over once its lease is stale, redone from scratch, never counted twice."""

import importlib
import shutil
from pathlib import Path

import pytest

from indexing.file_selection import iter_source_files
from indexing.models import CodeUnit, IndexChunk, IndexRun
from indexing.parsing import parse_source
from indexing.selectors import active_units
from indexing.services import index_run_start, repository_create
from indexing.static_tier import get_static_embedder
from indexing.store import get_vector_store
from tests.conftest import SAMPLE_FILES
from tests.support.workers import celery_workers, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

FAST_RECOVERY = {
    "REPORIFT_INDEX_CHUNK_FILES": "8",
    # A chunk is written and embedded a batch of units at a time: batches of a few files (8
    # files hold about 200 units here) keep a chunk half-written for most of its time, where
    # the kill below must land; phase 2 embeds in the same batches, so not much smaller.
    "REPORIFT_EMBED_BATCH_UNITS": "64",
    "REPORIFT_INDEX_CHUNK_LEASE_S": "4",
    "REPORIFT_CELERY_VISIBILITY_TIMEOUT_S": "6",
}


def expected_units(root: Path) -> int:
    files = iter_source_files(root, max_file_bytes=2 * 1024 * 1024, warnings=[])
    return sum(len(parse_source(f.absolute.read_bytes(), path=f.path).units) for f in files)


def test_two_workers_one_killed_mid_chunk(settings, tmp_path, write_repo):
    root = write_repo(SAMPLE_FILES)
    kombu = Path(importlib.import_module("kombu").__file__).parent
    shutil.copytree(kombu, root / "kombu", ignore=shutil.ignore_patterns("__pycache__"))
    settings.REPORIFT = {**settings.REPORIFT, "INDEX_CHUNK_FILES": 8}
    with celery_workers(settings, tmp_path, count=2, extra_env=FAST_RECOVERY) as (doomed, other):
        repository = repository_create(name="shop", source=str(root))
        run = index_run_start(repository=repository)

        taken: list[IndexChunk] = []

        def doomed_killed_mid_chunk(r: IndexRun) -> bool:
            # Killed the moment it is seen running a chunk whose units are being written: a
            # second read before the kill would give a short chunk time to finish.
            busy = IndexChunk.objects.filter(
                run=r, status="running", worker__endswith=f":{doomed.process.pid}"
            ).first()
            if busy is None or not CodeUnit.objects.filter(file_version__created_by=r).exists():
                return False
            doomed.kill()  # SIGKILL in the middle of its chunk
            taken.append(busy)
            return True

        # Looked for often: a chunk of this size is half-written for a few tenths of a second.
        wait_for(run, doomed_killed_mid_chunk, timeout=120, worker=doomed, poll=0.02)
        taken[0].refresh_from_db()
        assert taken[0].status == "running", "the chunk ended before the kill landed"
        run = wait_for(run, lambda r: r.is_finished, timeout=240, worker=other)
        assert run.status == IndexRun.Status.SUCCEEDED, run.error + other.output()
        assert f"chunk {taken[0].number} of run {run.pk}: attempt 2" in other.output()
        # Phase 1 answers with the static tier's vectors; the surviving worker adds the
        # transformer's as the next task.
        assert run.embedder_model.startswith("static-")
        run = wait_for(
            run, lambda r: r.phase2_status not in ("pending", "running"), timeout=240, worker=other
        )
        assert run.phase2_status == IndexRun.Phase2.DONE, run.phase2_error + other.output()
        assert run.embedder_model == run.phase2_model
    units = active_units(repository=repository)
    assert units.count() == expected_units(root) == run.units_total
    keys = list(units.values_list("path", "qualname", "start_line"))
    assert len(keys) == len(set(keys))  # nothing of the dead worker's half chunk survives
    for store in (get_vector_store(), get_vector_store(get_static_embedder().model_id)):
        assert store.count(repository_id=repository.pk) == units.count()
        assert store.count(repository_id=repository.pk, field="header") == units.count()
