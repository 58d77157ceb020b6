"""A generation's code unit rows by primary key, the recently read ones kept in the process.

A unit row is written once and never changed: an edited file gets a new file version with new
units, and a re-index makes new rows for whatever it parses again. A row read once is good for
as long as its generation exists, and a search that meets the same units again (a repository's
popular functions, an agent asking twice, paging) need not read them from the database again.
Rows are kept per generation (`indexing.lexical.generation_key`: its id and creation time), so
a database reset beside a living process, which can hand out the same ids again, never serves
another database's row. Which units a generation holds is not decided here: callers ask with
ids they know to be in it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from django.conf import settings

from indexing.lexical import Generation, generation_key
from indexing.models import CodeUnit

# About 3.5 KB a row with its code (django, celery and kombu): 210 MB at the default 60,000. A
# server reads every unit of its repositories up to this when it starts (search.warmup): a
# process's first queries then read none, and a repository of 51k units is held whole.
CACHED_UNITS = settings.REPORIFT["CACHED_UNITS"]

_rows: OrderedDict[tuple[str, int], CodeUnit] = OrderedDict()
_lock = threading.Lock()


def generation_units(run: Generation, pks: Iterable[int]) -> dict[int, CodeUnit]:
    """The units with these primary keys (ids with no row are left out). Shared, read-only
    instances: callers must not change them."""
    key = generation_key(run)
    wanted = set(pks)
    found: dict[int, CodeUnit] = {}
    with _lock:
        for pk in wanted:
            unit = _rows.get((key, pk))
            if unit is not None:
                _rows.move_to_end((key, pk))
                found[pk] = unit
    missing = wanted - found.keys()
    if missing:
        fetched = CodeUnit.objects.in_bulk(missing)
        found.update(fetched)
        with _lock:
            _rows.update(((key, pk), unit) for pk, unit in fetched.items())
            while len(_rows) > CACHED_UNITS:
                _rows.popitem(last=False)
    return found


def carry_over(run: Generation, *, previous: Generation | None) -> int:
    """Before `run`'s switch: the rows read for `previous`, the generation it replaces, that
    `run` holds too (a unit of a file that did not change keeps its row), kept for `run` as
    well, so that a process that indexes while it serves reads none of them again for the new
    generation's first searches. Two generations of one database, so the ids are the same
    rows. How many were carried over."""
    if previous is None:
        return 0
    old, new = generation_key(previous), generation_key(run)
    with _lock:
        cached = {pk for key, pk in _rows if key == old}
    if not cached:
        return 0
    held = CodeUnit.objects.filter(file_version__runs=run.pk).values_list("pk", flat=True)
    carried = cached.intersection(held)
    with _lock:
        for pk in carried:
            unit = _rows.get((old, pk))
            if unit is not None:
                _rows[(new, pk)] = unit
        while len(_rows) > CACHED_UNITS:  # the old generation's, read first, go first
            _rows.popitem(last=False)
    return len(carried)
