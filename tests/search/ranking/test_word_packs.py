"""A generation's saved words (search.ranking.word_packs), on a real index."""

import pytest

from indexing.models import CodeUnit
from indexing.selectors import active_units
from search.ranking.word_packs import read_pack, save_every_unit
from tests.indexing.test_phase2 import index as reindex  # phase 1 only, phase 2 left for later

pytestmark = pytest.mark.django_db


def test_a_new_generation_splits_only_the_units_of_files_that_changed(shop, monkeypatch):
    first = shop.active_run
    assert save_every_unit(first, keep=set(), previous=None) == 0  # saved after indexing
    source = shop.source
    with open(f"{source}/shop/text.py", "a") as handle:
        handle.write('\n\ndef shout(text):\n    """Upper-case it."""\n    return text.upper()\n')
    second = reindex(shop)
    changed = set(
        active_units(repository=shop).filter(path="shop/text.py").values_list("pk", flat=True)
    )
    manager, read = CodeUnit.objects, []
    in_bulk = manager.in_bulk
    monkeypatch.setattr(
        manager, "in_bulk", lambda ids, **kw: read.extend(ids) or in_bulk(ids, **kw)
    )
    assert save_every_unit(second, keep=set(), previous=first) == len(changed)
    assert set(read) == changed  # the rows of the other files' units are not read at all
    _, packed = read_pack(second)
    assert set(packed) == set(active_units(repository=shop).values_list("pk", flat=True))
    assert read_pack(first) is None  # not searched any more: removed
