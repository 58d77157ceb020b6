"""Two-phase indexing: searchable with the static tier's vectors at the switch, with the
transformer's once phase 2 is done, never a query vector of one model against the other's."""

from __future__ import annotations

import pytest

from indexing.embedding import get_embedder
from indexing.models import IndexRun
from indexing.phase2 import execute as phase2_execute
from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.static_tier import get_static_embedder
from indexing.store import get_vector_store
from search.services import search
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


@pytest.fixture
def deferred(settings):
    """Every transformer vector waits for phase 2 (no inline embedding before the switch)."""
    settings.REPORIFT = {**settings.REPORIFT, "PHASE2_INLINE_UNITS": 0}


def index(repository) -> IndexRun:
    run = index_run_execute(
        run=index_run_start(repository=repository, enqueue=False), phase2="later"
    )
    assert run.status == IndexRun.Status.SUCCEEDED, run.error
    repository.refresh_from_db()
    return run


def test_answers_between_the_phases_and_after(deferred, write_repo):
    static, transformer = get_static_embedder(), get_embedder()
    assert static is not None and static.dimension != transformer.dimension
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index(repository)
    units = active_units(repository=repository).count()
    assert run.embedder_model == static.model_id
    assert run.phase2_status == IndexRun.Phase2.PENDING
    assert run.phase2_units_total == units
    # Between the phases: the static vectors answer, and nothing of the transformer's is in.
    assert get_vector_store(static.model_id).count(repository_id=repository.pk) == units
    assert get_vector_store().count(repository_id=repository.pk) == 0
    between = search(repository=repository, query="retry a failed http call with backoff")
    assert between.index_phase == 1
    assert any("phase 1" in n for n in between.notices)
    assert between.results[0].unit.qualname == "retry_http_call"
    assert "S1" in between.results[0].streams  # the vector stream answered, with static vectors

    assert phase2_execute(run_id=run.pk) == IndexRun.Phase2.DONE
    run.refresh_from_db()
    assert run.embedder_model == transformer.model_id == run.phase2_model
    assert get_vector_store().count(repository_id=repository.pk) == units
    after = search(repository=repository, query="retry a failed http call with backoff")
    assert after.index_phase == 2 and not any("phase 1" in n for n in after.notices)
    assert after.results[0].unit.qualname == "retry_http_call"
    assert "S1" in after.results[0].streams


def test_phase2_is_incremental(deferred, write_repo):
    root = write_repo(SAMPLE_FILES)
    repository = repository_create(name="shop", source=str(root))
    phase2_execute(run_id=index(repository).pk)
    (root / "shop" / "text.py").write_text(
        SAMPLE_FILES["shop/text.py"] + '\n\ndef shout(text):\n    """Upper-case it."""\n'
        "    return text.upper()\n"
    )
    second = index(repository)
    changed = active_units(repository=repository).filter(path="shop/text.py").count()
    # Only the edited file lacks the transformer's vectors; the others were carried over.
    assert second.phase2_units_total == changed < active_units(repository=repository).count()
    assert phase2_execute(run_id=second.pk) == IndexRun.Phase2.DONE
    units = active_units(repository=repository).count()
    assert get_vector_store().count(repository_id=repository.pk) == units
    # Phase 1's vectors stay for the next run: the unchanged files were not embedded again.
    static = get_static_embedder().model_id
    assert get_vector_store(static).count(repository_id=repository.pk) == units
    assert second.units_to_embed == changed
    found = search(repository=repository, query="make text upper case")
    assert found.index_phase == 2 and found.results[0].unit.qualname == "shout"


def test_small_changes_embed_the_transformer_before_the_switch(write_repo):
    root = write_repo(SAMPLE_FILES)
    repository = repository_create(name="shop", source=str(root))
    first = index(repository)  # a first index answers with phase 1 at once, however small
    assert first.phase2_status == IndexRun.Phase2.PENDING
    phase2_execute(run_id=first.pk)
    (root / "shop" / "text.py").write_text(SAMPLE_FILES["shop/text.py"] + "\nLIMIT = 3\n")
    second = index(repository)  # an edit of a repository the transformer serves: no step back
    assert second.phase2_status == IndexRun.Phase2.DONE
    assert second.embedder_model == get_embedder().model_id
    assert search(repository=repository, query="slugify a title").index_phase == 2


def test_a_deployment_may_stop_at_phase1(settings, write_repo):
    settings.REPORIFT = {**settings.REPORIFT, "PHASE2_MAX_UNITS": 3}
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index(repository)
    assert run.phase2_status == IndexRun.Phase2.SKIPPED
    assert "REPORIFT_PHASE2_MAX_UNITS" in run.phase2_error
    response = search(repository=repository, query="split a csv line into fields")
    assert response.index_phase == 1
    assert any("phase 2 did not run" in n for n in response.notices)
    assert response.results[0].unit.qualname == "parse_csv_line"
    assert get_vector_store().count(repository_id=repository.pk) == 0


def test_the_page_api_and_run_say_which_phase_answers(deferred, write_repo, client):
    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index(repository)
    found = client.get("/api/search", {"repo": "shop", "q": "charge a credit card"}).json()
    assert found["index_phase"] == 1 and any("phase 1" in n for n in found["notices"])
    status = client.get("/api/repos/shop/run").json()
    assert status["answering_phase"] == 1 and status["phase2_status"] == "pending"
    assert "phase 1 answers" in client.get("/").content.decode()
    phase2_execute(run_id=run.pk)
    assert client.get("/api/search", {"repo": "shop", "q": "charge"}).json()["index_phase"] == 2
    status = client.get("/api/repos/shop/run").json()
    assert status["answering_phase"] == 2 and status["phase2_status"] == "done"
    assert "phase 1 answers" not in client.get("/").content.decode()


def test_background_work_is_told_of_the_run_and_its_failure_never_stops_phase2(
    deferred, write_repo, caplog
):
    from indexing.signals import background_work

    told = []

    def broken(sender, *, run, **kwargs):
        told.append(run.pk)
        raise RuntimeError("a receiver that fails")

    background_work.connect(broken, dispatch_uid="test.broken")
    try:
        repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
        run = index(repository)
        assert told == []  # "later": nothing of the background work yet
        assert phase2_execute(run_id=run.pk) == IndexRun.Phase2.DONE
    finally:
        background_work.disconnect(dispatch_uid="test.broken")
    assert told == [run.pk]
    assert "a receiver that fails" in caplog.text


def test_phase2_saves_every_units_words_for_the_processes_that_search(deferred, write_repo):
    from search.ranking.word_packs import read_pack

    repository = repository_create(name="shop", source=str(write_repo(SAMPLE_FILES)))
    run = index(repository)
    assert read_pack(run) is None
    phase2_execute(run_id=run.pk)
    _, packed = read_pack(run)
    assert set(packed) == set(active_units(repository=repository).values_list("pk", flat=True))
