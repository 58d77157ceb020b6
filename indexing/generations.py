"""Bookkeeping of generations: which file versions (and their vectors) may be deleted.

Vectors are deleted before rows: a unit row without a vector is invisible to search, while a
vector without a row would be returned by the store and has to be filtered out.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet

from indexing.models import CodeUnit, DocumentChunk, FileVersion, IndexRun, Repository
from indexing.store import VectorStore, get_vector_store


def delete_units(queryset: QuerySet[CodeUnit], *, also_models: Sequence[str] = ()) -> int:
    """Units and their vectors under every model (vectors first: see the module docstring).
    `also_models`: models that may hold vectors their versions do not record yet (a chunk
    whose worker died after storing some vectors, before marking its versions)."""
    stores: dict[int, VectorStore] = {}
    ids: dict[tuple[int, int], list[str]] = {}  # (store, repository) -> vector ids
    rows = queryset.values_list("pk", "repository_id", "file_version__embedded")
    for pk, repository_id, embedded in rows:
        # The serving model too: versions indexed before models were recorded have its vectors.
        for model_id in {*embedded, *also_models, None}:
            store = get_vector_store(model_id)
            stores[id(store)] = store
            ids.setdefault((id(store), repository_id), []).append(str(pk))
    for (store_key, repository_id), vector_ids in ids.items():
        stores[store_key].delete(list(dict.fromkeys(vector_ids)), repository_id=repository_id)
    return queryset.delete()[0]


def delete_file_versions(queryset: QuerySet[FileVersion]) -> int:
    version_ids = list(queryset.values_list("pk", flat=True))
    if not version_ids:
        return 0
    delete_units(CodeUnit.objects.filter(file_version_id__in=version_ids))
    FileVersion.objects.filter(pk__in=version_ids).delete()
    return len(version_ids)


def discard_unpublished_versions(*, run: IndexRun) -> int:
    """Delete the file versions a run created that the active generation does not use."""
    active = Repository.objects.values_list("active_run_id", flat=True).get(pk=run.repository_id)
    orphans = FileVersion.objects.filter(created_by=run)
    if active is not None:
        orphans = orphans.exclude(runs=active)
    return delete_file_versions(orphans)


def collect_garbage(*, repository: Repository) -> int:
    """Delete file versions outside the active generation that no unfinished run is building."""
    repository.refresh_from_db()
    if repository.active_run_id is None:
        return 0
    unfinished = repository.runs.filter(
        status__in=[IndexRun.Status.QUEUED, IndexRun.Status.RUNNING]
    )
    DocumentChunk.objects.filter(run__repository=repository).exclude(
        run__in=[repository.active_run_id, *unfinished.values_list("pk", flat=True)]
    ).delete()
    dead = (
        FileVersion.objects.filter(repository=repository)
        .exclude(runs=repository.active_run_id)
        .exclude(created_by__in=unfinished)
    )
    return delete_file_versions(dead)
