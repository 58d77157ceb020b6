"""Units to vectors in the store, for whichever model a phase embeds with (`indexing.chunks` in
phase 1, `indexing.phase2` after it), and the record of which models each file version has."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db.models import QuerySet

from indexing.embedding import Embedder
from indexing.models import CodeUnit, FileVersion
from indexing.store import VectorRecord, get_vector_store
from indexing.unit_rows import WrittenUnit
from indexing.unit_text import field_texts
from indexing.vector_cache import embed_cached


def embed_units(
    units: Sequence[CodeUnit | WrittenUnit], *, embedder: Embedder, paths_are_words: bool
) -> None:
    """Each unit's field texts embedded through the vector cache (a text embedded before, in
    any repository, is not embedded again) and stored, field by field, in `embedder`'s own
    collections."""
    store = get_vector_store(embedder.model_id)
    records = [VectorRecord(u.vector_id, u.repository_id, u.kind, u.path) for u in units]
    for field, texts in field_texts(units, include_path=paths_are_words).items():
        store.upsert(records, embed_cached(embedder, texts), field=field)


def mark_embedded(version_ids: Sequence[int], model_id: str) -> None:
    """Record that every unit of these versions has `model_id`'s vectors (after they are
    stored: a crash between the two embeds them again, never leaves one without)."""
    _rewrite(
        FileVersion.objects.filter(pk__in=version_ids),
        lambda embedded: embedded if model_id in embedded else [*embedded, model_id],
    )


def forget_embedded(*, repository_id: int, model_id: str) -> None:
    """Strike `model_id` from the repository's versions once its vectors are dropped."""
    _rewrite(
        FileVersion.objects.filter(repository_id=repository_id),
        lambda embedded: [m for m in embedded if m != model_id],
    )


def _rewrite(versions: QuerySet[FileVersion], change: Callable[[list[str]], list[str]]) -> None:
    """Apply `change` to each version's list of models: one UPDATE per distinct result."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for pk, embedded in versions.values_list("pk", "embedded"):
        changed = change(embedded)
        if changed != embedded:
            groups.setdefault(tuple(changed), []).append(pk)
    for embedded, pks in groups.items():
        FileVersion.objects.filter(pk__in=pks).update(embedded=list(embedded))
