"""Indexing queries."""

from __future__ import annotations

from django.db.models import QuerySet

from indexing.models import CodeUnit, IndexRun, Repository


def repository_list() -> QuerySet[Repository]:
    return Repository.objects.select_related("active_run").order_by("name")


def active_units(*, repository: Repository) -> QuerySet[CodeUnit]:
    """The units of the generation that searches read (none before the first successful run)."""
    if repository.active_run_id is None:
        return CodeUnit.objects.none()
    return CodeUnit.objects.filter(
        repository=repository, file_version__runs=repository.active_run_id
    )


def latest_run(*, repository: Repository) -> IndexRun | None:
    return repository.runs.order_by("-created_at", "-id").first()
