import contextlib
from datetime import timedelta

import pytest
from django.utils import timezone

from indexing.embedding import get_embedder
from indexing.models import CodeUnit, FileVersion, IndexRun, Repository
from indexing.selectors import active_units, units_by_vector_id
from indexing.services import (
    index_run_execute,
    index_run_start,
    repository_create,
    repository_delete,
)
from indexing.store import get_vector_store
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


def index_now(repository: Repository) -> IndexRun:
    run = index_run_start(repository=repository, enqueue=False)
    return index_run_execute(run=run)


def top_unit(repository: Repository, query: str):
    vector = get_embedder().embed([query])[0]
    hits = get_vector_store().query(vector, repository_id=repository.pk, n=10)
    resolved = units_by_vector_id(repository=repository, vector_ids=[h.vector_id for h in hits])
    ranked = [resolved[h.vector_id] for h in hits if h.vector_id in resolved]
    return ranked[0] if ranked else None


@pytest.fixture
def sample_repo(write_repo):
    root = write_repo(SAMPLE_FILES)
    return root, repository_create(name="shop", source=str(root))


def test_index_local_repository(sample_repo):
    _root, repository = sample_repo
    run = index_now(repository)
    assert run.status == IndexRun.Status.SUCCEEDED, run.error
    repository.refresh_from_db()
    assert repository.active_run_id == run.pk
    qualnames = set(active_units(repository=repository).values_list("qualname", flat=True))
    assert {
        "retry_http_call",
        "PaymentGateway",
        "PaymentGateway.charge",
        "PaymentGateway._post",
        "slugify_title",
        "parse_csv_line",
        "test_slugify_title",
    } == qualnames
    assert run.files_total == 3 and run.units_total == 7 and run.units_embedded == 7
    assert get_vector_store().count(repository_id=repository.pk) == 7
    charge = active_units(repository=repository).get(qualname="PaymentGateway.charge")
    assert (charge.path, charge.kind, charge.class_name) == (
        "shop/payments.py",
        "method",
        "PaymentGateway",
    )
    assert (
        top_unit(repository, "retry failed http calls with backoff").qualname == "retry_http_call"
    )


def test_reindex_embeds_only_the_changed_file(sample_repo):
    root, repository = sample_repo
    first = index_now(repository)
    payments_units_before = set(
        active_units(repository=repository)
        .filter(path="shop/payments.py")
        .values_list("pk", flat=True)
    )
    text = root / "shop" / "text.py"
    text.write_text(
        text.read_text()
        + '\n\ndef count_words(text):\n    """Count words."""\n    return len(text.split())\n'
    )

    second = index_now(repository)
    assert second.status == IndexRun.Status.SUCCEEDED, second.error
    assert second.files_total == 3
    assert second.files_reused == 2
    assert second.units_embedded == 3  # slugify_title, parse_csv_line, count_words
    assert second.units_total == 8
    # Unchanged files keep their very rows and vectors; the old version of text.py is gone.
    assert payments_units_before <= set(
        active_units(repository=repository).values_list("pk", flat=True)
    )
    assert FileVersion.objects.filter(repository=repository, path="shop/text.py").count() == 1
    assert get_vector_store().count(repository_id=repository.pk) == 8
    assert first.pk != second.pk
    assert top_unit(repository, "count the words in a text").qualname == "count_words"


def test_files_parsed_by_an_older_parser_are_parsed_again(sample_repo):
    from indexing.parsing import PARSER_VERSION

    _, repository = sample_repo
    first = index_now(repository)
    # As an index made before module units existed: every file parsed by another parser.
    FileVersion.objects.filter(repository=repository).update(parser_version="units-1")
    second = index_now(repository)
    assert second.status == IndexRun.Status.SUCCEEDED, second.error
    assert (second.files_reused, second.files_deleted) == (0, 0)
    assert second.units_total == first.units_total
    active = FileVersion.objects.filter(runs=second)
    assert set(active.values_list("parser_version", flat=True)) == {PARSER_VERSION}
    third = index_now(repository)
    assert third.files_reused == 3  # parsed by this parser now: carried over


def test_deleted_file_disappears(sample_repo):
    root, repository = sample_repo
    index_now(repository)
    (root / "shop" / "text.py").unlink()
    run = index_now(repository)
    assert run.files_deleted == 1 and run.units_embedded == 0
    assert not active_units(repository=repository).filter(path="shop/text.py").exists()
    assert not CodeUnit.objects.filter(repository=repository, path="shop/text.py").exists()
    assert get_vector_store().count(repository_id=repository.pk) == 5


def test_failing_run_keeps_previous_generation_serving(sample_repo, monkeypatch):
    root, repository = sample_repo
    good = index_now(repository)
    (root / "shop" / "text.py").write_text("def brand_new():\n    return 1\n")
    embedder = get_embedder()

    def broken_embed(texts, progress=None):
        raise RuntimeError("embedding backend crashed")

    monkeypatch.setattr(embedder, "embed", broken_embed)
    bad = index_now(repository)
    monkeypatch.undo()

    assert bad.status == IndexRun.Status.FAILED
    assert "embedding backend crashed" in bad.error
    repository.refresh_from_db()
    assert repository.active_run_id == good.pk
    assert active_units(repository=repository).count() == 7
    assert not CodeUnit.objects.filter(qualname="brand_new").exists(), "half-built units removed"
    assert get_vector_store().count(repository_id=repository.pk) == 7
    assert top_unit(repository, "turn a title into a url slug").qualname == "slugify_title"

    # The next run succeeds and picks the change up.
    fixed = index_now(repository)
    assert fixed.status == IndexRun.Status.SUCCEEDED
    assert active_units(repository=repository).filter(qualname="brand_new").exists()


def test_source_failure_is_recorded(tmp_path):
    repository = repository_create(name="gone", source=str(tmp_path / "missing"))
    run = index_now(repository)
    assert run.status == IndexRun.Status.FAILED
    assert "not a directory" in run.error


def test_parse_problems_become_warnings_and_units_survive(write_repo):
    root = write_repo(
        {
            "ok.py": "def fine():\n    return 1\n",
            "broken.py": "def good():\n    return 1\n\ndef bad(:\n    pass\n",
            "latin.py": b"def latin():\n    return '\xe9'\n".decode("latin-1"),
        }
    )
    (root / "latin.py").write_bytes(b"def latin():\n    return '\xe9'\n")
    repository = repository_create(name="messy", source=str(root))
    run = index_now(repository)
    assert run.status == IndexRun.Status.SUCCEEDED
    assert run.files_with_errors == 2
    assert any(w.startswith("broken.py: syntax errors") for w in run.warnings)
    assert any(w.startswith("latin.py: not valid UTF-8") for w in run.warnings)
    names = set(active_units(repository=repository).values_list("qualname", flat=True))
    assert {"fine", "good", "latin"} <= names


def test_runs_never_overlap(sample_repo):
    _, repository = sample_repo
    first = index_run_start(repository=repository, enqueue=False)
    assert index_run_start(repository=repository, enqueue=False).pk == first.pk


def test_stale_running_run_is_failed_and_replaced(sample_repo):
    _, repository = sample_repo
    stale = index_run_start(repository=repository, enqueue=False)
    IndexRun.objects.filter(pk=stale.pk).update(
        status=IndexRun.Status.RUNNING, heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    fresh = index_run_start(repository=repository, enqueue=False)
    stale.refresh_from_db()
    assert fresh.pk != stale.pk
    assert stale.status == IndexRun.Status.FAILED and "lost" in stale.error


def test_redelivered_run_starts_over_cleanly(sample_repo):
    _, repository = sample_repo
    run = index_run_start(repository=repository, enqueue=False)
    # Simulate a worker that died after marking the run running and writing some units.
    IndexRun.objects.filter(pk=run.pk).update(status=IndexRun.Status.RUNNING, units_embedded=99)
    finished = index_run_execute(run=run)
    assert finished.status == IndexRun.Status.SUCCEEDED
    assert finished.units_embedded == 7
    assert index_run_execute(run=finished).pk == finished.pk  # a finished run is left alone


def test_enqueued_on_commit_runs_eagerly(sample_repo, django_capture_on_commit_callbacks):
    _, repository = sample_repo
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = index_run_start(repository=repository)
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == IndexRun.Status.SUCCEEDED


def test_delete_removes_rows_and_vectors(sample_repo):
    _, repository = sample_repo
    index_now(repository)
    pk = repository.pk
    repository_delete(repository=repository)
    assert not Repository.objects.filter(pk=pk).exists()
    assert not CodeUnit.objects.filter(repository_id=pk).exists()
    assert get_vector_store().count(repository_id=pk) == 0


def test_archive_repository(tmp_path, sample_repo):
    import shutil

    root, _ = sample_repo
    archive = shutil.make_archive(
        str(tmp_path / "shop-main"), "zip", root_dir=root.parent, base_dir=root.name
    )
    repository = repository_create(name="shop-zip", source=archive)
    assert repository.source_kind == Repository.SourceKind.ARCHIVE
    run = index_now(repository)
    assert run.status == IndexRun.Status.SUCCEEDED, run.error
    assert active_units(repository=repository).filter(path="shop/payments.py").count() == 4


@contextlib.contextmanager
def serving_other_embedder(settings):
    """The other MiniLM serving (the tuned one if the base serves, else the base), as after an
    upgrade or a roll-back."""
    from indexing.embedder_delta import SHIPPED

    serving = settings.REPORIFT["EMBEDDER"]["OPTIONS"].get("delta")
    settings.REPORIFT = {
        **settings.REPORIFT,
        "EMBEDDER": {
            "CLASS": "indexing.embedding.OnnxMiniLMEmbedder",
            "OPTIONS": {"delta": "" if serving else str(SHIPPED)},
        },
    }
    get_embedder.cache_clear()
    get_vector_store.cache_clear()
    try:
        yield get_embedder()
    finally:
        get_embedder.cache_clear()
        get_vector_store.cache_clear()


@pytest.mark.slow
def test_index_of_another_embedder_is_re_embedded_never_mixed(sample_repo, settings):
    from indexing.selectors import indexed_with_another_embedder
    from search.services import search

    _, repository = sample_repo
    old_id = get_embedder().model_id
    first = index_now(repository)
    assert first.embedder_model == old_id
    old_store = get_vector_store()
    units = active_units(repository=repository).count()
    assert old_store.count(repository_id=repository.pk) == units

    with serving_other_embedder(settings) as embedder:  # an upgrade
        assert embedder.model_id != old_id
        repository.refresh_from_db()
        stale = indexed_with_another_embedder(repository=repository, model_id=embedder.model_id)
        assert stale == old_id
        # Meanwhile: the new model's query vectors never meet the old model's vectors.
        response = search(repository=repository, query="retry failed http calls")
        assert any("indexed with another embedder" in n for n in response.notices)
        assert all(set(r.streams) <= {"S4"} for r in response.results)
        assert get_vector_store().count(repository_id=repository.pk) == 0

        second = index_now(repository)  # nothing changed on disk: every unit embedded again
        assert second.status == "succeeded", second.error
        assert second.embedder_model == embedder.model_id
        assert second.files_reused == first.files_total
        assert second.units_embedded == units
        assert get_vector_store().count(repository_id=repository.pk) == units
        assert old_store.count(repository_id=repository.pk) == 0  # the old model's dropped
        repository.refresh_from_db()
        assert not indexed_with_another_embedder(repository=repository, model_id=embedder.model_id)
        response = search(repository=repository, query="retry failed http calls")
        assert not response.notices
        assert response.results[0].unit.qualname == "retry_http_call"
        assert "S1" in response.results[0].streams
