from indexing.models import IndexRun, Repository
from indexing.selectors import active_generation, active_generations


def test_the_active_generation_shows_phase_2_progress_as_it_changes(shop):
    first = active_generation(repository=shop)
    assert first.pk == shop.active_run_id and first.created_at == shop.active_run.created_at
    # Phase 2 moves on in another process: the next search sees it, though the run was read.
    IndexRun.objects.filter(pk=first.pk).update(
        phase2_status=IndexRun.Phase2.RUNNING, phase2_units_embedded=3, phase2_error=""
    )
    again = active_generation(repository=shop)
    assert again is not first and again.pk == first.pk
    assert (again.phase2_status, again.phase2_units_embedded) == (IndexRun.Phase2.RUNNING, 3)
    assert again.created_at == first.created_at
    # A caller's copy is its own: changing it changes no later answer.
    again.phase2_units_embedded = 99
    assert active_generation(repository=shop).phase2_units_embedded == 3


def test_a_repository_without_a_finished_run_has_no_generation(db):
    repository = Repository.objects.create(name="empty", source="/nowhere")
    assert active_generation(repository=repository) is None


def test_the_generations_of_many_repositories_in_one_query(shop, django_assert_num_queries):
    empty = Repository.objects.create(name="empty", source="/nowhere")
    active_generation(repository=shop)  # its run is read once, then kept
    with django_assert_num_queries(1):
        found = active_generations(repositories=[shop, empty])
    assert list(found) == [shop.pk]
    assert found[shop.pk].pk == shop.active_run_id
    assert found[shop.pk].embedder_model == shop.active_run.embedder_model
    assert active_generations(repositories=[]) == {}
