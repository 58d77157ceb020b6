"""A generation's unit rows come from the database once, then from the process; a generation
never gets another generation's cached row."""

from datetime import timedelta

from indexing.models import CodeUnit
from indexing.unit_cache import generation_units


def test_rows_are_read_once_per_generation(shop, django_assert_num_queries):
    run = shop.active_run
    pks = list(CodeUnit.objects.filter(repository=shop).values_list("pk", flat=True))
    with django_assert_num_queries(1):
        first = generation_units(run, [*pks, 10**9])  # an id with no row is left out
    assert set(first) == set(pks)
    with django_assert_num_queries(0):
        again = generation_units(run, pks)
    assert all(again[pk] is first[pk] for pk in pks)
    run.created_at += timedelta(microseconds=1)  # another generation with the same id
    with django_assert_num_queries(1):
        generation_units(run, pks)
