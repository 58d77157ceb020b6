from __future__ import annotations

from indexing.models import CodeUnit
from indexing.selectors import active_units, repositories_visible_to
from tryouts.models import UnitExample


def example_for_caller(*, example_id: int, user) -> UnitExample | None:
    """The example if its repository is one the caller may see (else None, as if missing)."""
    return (
        UnitExample.objects.select_related("repository")
        .filter(pk=example_id, repository__in=repositories_visible_to(user))
        .first()
    )


def unit_for_caller(*, unit_id: int, user) -> CodeUnit | None:
    """An indexed unit of a repository the caller may see (else None, as if missing)."""
    unit = (
        CodeUnit.objects.select_related("repository")
        .filter(pk=unit_id, repository__in=repositories_visible_to(user))
        .first()
    )
    if unit is None or not active_units(repository=unit.repository).filter(pk=unit_id).exists():
        return None
    return unit
