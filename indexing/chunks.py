"""Step 2 of an index run (see `indexing.pipeline`): one chunk of new file versions parsed from
their stored content and embedded, on whatever worker took the chunk's task.

A chunk is claimed with a lease that its worker renews as it goes. A redelivered task (its
worker died; Celery acknowledges late) finds the lease stale, deletes whatever the dead worker
wrote for the chunk's files and does the chunk again, so a chunk is never half-visible and its
units never twice; a task that finds the lease fresh leaves the chunk to its holder. The worker
that finishes the last chunk of a run is told so, and publishes it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from datetime import timedelta
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from indexing.generations import delete_units
from indexing.models import CodeUnit, FileVersion, IndexChunk, IndexRun
from indexing.parsing import ParsedFile, parse_source
from indexing.pipeline import bump_run
from indexing.static_tier import embedder_for
from indexing.unit_rows import WrittenUnit, insert_units
from indexing.unit_vectors import embed_units, mark_embedded
from reporift.memory import release_free_heap
from reporift.words import plural

logger = logging.getLogger(__name__)
WORKER = f"{socket.gethostname()}:{os.getpid()}"


class ChunkOutcome(StrEnum):
    DONE = "done"  # done now, runs remain
    LAST = "last"  # done now, and it was the run's last: publish it
    ALREADY_DONE = "already done"  # a duplicate delivery
    BUSY = "busy"  # another live worker holds it: try again later
    STOPPED = "stopped"  # its run is no longer running


def lease() -> timedelta:
    return timedelta(seconds=settings.REPORIFT["INDEX_CHUNK_LEASE_S"])


def process_chunk(chunk_id: int) -> ChunkOutcome:
    claimed = _claim(chunk_id)
    if isinstance(claimed, ChunkOutcome):
        return claimed
    chunk = claimed
    run = chunk.run
    repository = run.repository
    versions = list(FileVersion.objects.filter(pk__in=chunk.version_ids).order_by("pk"))
    if not chunk.embed_only:
        # A dead worker may have written part of this chunk: it goes, before anything is redone,
        # with the vectors it stored under phase 1's model before marking the versions.
        delete_units(
            CodeUnit.objects.filter(file_version__in=versions), also_models=[run.embedder_model]
        )
    # Phase 1's model (`indexing.phase2` has the rest): the one the run was prepared with.
    embedder = embedder_for(run.embedder_model)
    paths_are_words = repository.source_kind != "snippets"
    batch_size = settings.REPORIFT["EMBED_BATCH_UNITS"]

    def embed(units: Sequence[CodeUnit | WrittenUnit]) -> None:
        for start in range(0, len(units), batch_size):
            _embed(units[start : start + batch_size], embedder, paths_are_words, run, chunk)

    if chunk.embed_only:
        embed(_existing(versions, run.pk))
    else:
        # Files are parsed, written and embedded a batch of units at a time: one transaction
        # and a few statements per batch rather than three per file (most of a chunk's time
        # went to the queries), and memory bounded however large the chunk.
        group: list[tuple[FileVersion, ParsedFile]] = []
        pending = 0  # units in the group
        for version in versions:
            parsed = parse_source(version.data() or b"", path=version.path)
            group.append((version, parsed))
            pending += len(parsed.units)
            if pending >= batch_size:
                embed(_write(group, repository, run))
                group, pending = [], 0
        if group:
            embed(_write(group, repository, run))
    mark_embedded([v.pk for v in versions], embedder.model_id)
    release_free_heap()
    return _finish(chunk)


def _claim(chunk_id: int) -> IndexChunk | ChunkOutcome:
    now = timezone.now()
    with transaction.atomic():
        chunk = IndexChunk.objects.select_for_update().select_related("run__repository")
        chunk = chunk.filter(pk=chunk_id).first()
        if chunk is None or chunk.status == IndexChunk.Status.DONE:
            return ChunkOutcome.ALREADY_DONE
        if chunk.run.status != IndexRun.Status.RUNNING:
            return ChunkOutcome.STOPPED
        if chunk.status == IndexChunk.Status.RUNNING and chunk.heartbeat_at > now - lease():
            return ChunkOutcome.BUSY
        chunk.status = IndexChunk.Status.RUNNING
        chunk.worker = WORKER
        chunk.attempts += 1
        chunk.heartbeat_at = now
        chunk.save(update_fields=["status", "worker", "attempts", "heartbeat_at"])
    if chunk.attempts > 1:
        logger.warning("chunk %s of run %s: attempt %d", chunk.number, chunk.run_id, chunk.attempts)
    return chunk


def _existing(versions: list[FileVersion], run_id: int) -> list[CodeUnit]:
    """Carried-over versions' units, to be embedded under this run's model (upserts by unit
    id, so a redelivered chunk writes the same vectors again)."""
    units = list(CodeUnit.objects.filter(file_version__in=versions).order_by("file_version", "pk"))
    bump_run(run_id, units_to_embed=len(units))
    return units


def _write(
    parsed_files: list[tuple[FileVersion, ParsedFile]], repository, run: IndexRun
) -> list[WrittenUnit]:
    """The files' units and parse warnings written in one transaction."""
    rows = [
        {
            "file_version_id": version.pk,
            "repository_id": repository.pk,
            "path": version.path,
            "language": parsed.language,
            "kind": u.kind,
            "name": u.name[:300],
            "qualname": u.qualname[:1000],
            "parent_qualname": u.parent_qualname[:1000],
            "class_name": u.class_name[:1000],
            "class_summary": u.class_summary[:300],
            "module_summary": parsed.module_summary[:300],
            "start_line": u.start_line,
            "end_line": u.end_line,
            "signature": u.signature,
            "docstring": u.docstring,
            "code": u.code,
            "decorators": list(u.decorators),
            "defines": list(u.defines),
            "is_async": u.is_async,
        }
        for version, parsed in parsed_files
        for u in parsed.units
    ]
    warnings = {version.pk: _parse_warning(parsed) for version, parsed in parsed_files}
    warnings = {pk: warning for pk, warning in warnings.items() if warning}
    with transaction.atomic():
        for pk, warning in warnings.items():  # a new version's warning is empty
            FileVersion.objects.filter(pk=pk).update(parse_warning=warning)
        units = insert_units(rows)
    bump_run(
        run.pk,
        files_done=len(parsed_files),
        units_to_embed=len(units),
        files_with_errors=len(warnings),
    )
    return units


def _parse_warning(parsed: ParsedFile) -> str:
    if parsed.failure:
        return f"could not be parsed ({parsed.failure}); no units"
    warning = ""
    if parsed.decoded_with_replacement:
        warning = "not valid UTF-8; undecodable bytes replaced"
    if parsed.has_errors:
        lines = ", ".join(map(str, parsed.error_lines[:5]))
        warning = "; ".join(filter(None, [warning, f"syntax errors near line(s) {lines}"]))
    if warning:
        warning = f"{warning} ({plural(len(parsed.units), 'unit')} recovered)"
    return warning


def _embed(batch, embedder, paths_are_words, run, chunk) -> None:
    embed_units(batch, embedder=embedder, paths_are_words=paths_are_words)
    bump_run(run.pk, units_embedded=len(batch))
    IndexChunk.objects.filter(pk=chunk.pk).update(heartbeat_at=timezone.now())


def _finish(chunk: IndexChunk) -> ChunkOutcome:
    """Mark the chunk done; exactly one finisher of a run learns it was the last."""
    with transaction.atomic():
        # Writing the run row first serialises the run's finishers (a row lock on PostgreSQL,
        # the database lock on SQLite), so two last chunks cannot both miss each other.
        bump_run(chunk.run_id)
        IndexChunk.objects.filter(pk=chunk.pk).update(
            status=IndexChunk.Status.DONE, heartbeat_at=timezone.now()
        )
        remaining = IndexChunk.objects.filter(run_id=chunk.run_id).exclude(
            status=IndexChunk.Status.DONE
        )
        if remaining.exists():
            return ChunkOutcome.DONE
        claimed = IndexRun.objects.filter(
            pk=chunk.run_id, phase=IndexRun.Phase.EMBEDDING, status=IndexRun.Status.RUNNING
        ).update(phase=IndexRun.Phase.SWITCHING)
    return ChunkOutcome.LAST if claimed else ChunkOutcome.DONE
