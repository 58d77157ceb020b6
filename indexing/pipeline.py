"""One index run in three steps that may run in one process or spread over Celery workers.

1. prepare (one task): fetch the source, hash every file, carry over the files whose (path,
   sha256) the active generation already has, store each new or changed file's content in a new
   FileVersion, and cut those into chunks (`IndexChunk`).
2. chunks (any number of tasks, on any workers): parse a chunk's files from the stored content
   and embed their units (`indexing.chunks`).
3. publish (one task, started by whichever chunk finishes last): the generation's membership,
   its lexical index, and one atomic switch of `Repository.active_run`.

Everything before the switch is invisible to search, so a run that fails or a worker that dies
leaves the previous generation serving. Incremental by construction: only new or changed files
are parsed and embedded.
"""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from indexing.documents import collect_document_chunks
from indexing.embedding import get_embedder
from indexing.exact_index import add_versions, ensure_versions
from indexing.file_selection import iter_source_files
from indexing.generations import collect_garbage, delete_file_versions
from indexing.lexical import drop_lexical_index, lexical_index_for_run
from indexing.models import CodeUnit, DocumentChunk, FileVersion, IndexChunk, IndexRun
from indexing.parsing import PARSER_VERSION
from indexing.sources import Source
from indexing.static_tier import get_static_embedder, phase1_embedder, static_model_id
from indexing.store import VectorStoreUnavailable, drop_model_vectors, get_vector_store
from indexing.unit_vectors import forget_embedded
from indexing.vector_mirror import drop_saved_graphs
from reporift.memory import release_free_heap
from reporift.words import plural

logger = logging.getLogger(__name__)
Progress = Callable[[IndexRun], None]
# New file versions are inserted this many at a time, or once their contents reach the bytes.
_VERSION_BATCH = 500
_VERSION_BATCH_BYTES = 16 * 2**20

COUNTERS = (
    "files_total",
    "files_done",
    "files_reused",
    "files_deleted",
    "files_with_errors",
    "units_total",
    "units_to_embed",
    "units_embedded",
)


def save_run(run: IndexRun, **changes) -> None:
    for name, value in changes.items():
        setattr(run, name, value)
    run.heartbeat_at = timezone.now()
    IndexRun.objects.filter(pk=run.pk).update(heartbeat_at=run.heartbeat_at, **changes)


def bump_run(run_id: int, **increments: int) -> None:
    """Add to a run's counters; chunks on several workers do this at once, so only by F()."""
    IndexRun.objects.filter(pk=run_id).update(
        heartbeat_at=timezone.now(), **{k: F(k) + v for k, v in increments.items() if v}
    )


def prepare_run(*, run: IndexRun, source: Source, workdir: Path) -> list[int]:
    """Steps 1 of the module docstring: the new versions' contents stored, the chunks made.
    Returns the chunk ids, in order."""
    repository = run.repository
    embedder, transformer = phase1_embedder(), get_embedder()
    warnings: list[str] = []
    save_run(run, **dict.fromkeys(COUNTERS, 0), phase=IndexRun.Phase.FETCHING)
    fetched = source.fetch(workdir)
    warnings += fetched.warnings
    save_run(
        run,
        commit_sha=fetched.commit_sha,
        embedder_model=embedder.model_id,
        phase2_model="" if embedder is transformer else transformer.model_id,
        phase=IndexRun.Phase.SCANNING,
    )
    IndexChunk.objects.filter(run=run).delete()  # a redelivered run starts over
    DocumentChunk.objects.filter(run=run).delete()
    DocumentChunk.objects.bulk_create(
        DocumentChunk(run=run, path=path, text=text)
        for path, text in collect_document_chunks(fetched.root)
    )
    active = _active_versions(repository)
    entries = iter_source_files(
        fetched.root,
        max_file_bytes=settings.REPORIFT["MAX_FILE_BYTES"],
        max_files=settings.REPORIFT["MAX_FILES"],
        warnings=warnings,
        gitignore=fetched.gitignore,
    )
    reused, present, unembedded = [], set(), []
    writer = _VersionWriter(run)
    for entry in entries:
        data = entry.absolute.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        present.add(entry.path)
        if (found := active.get((entry.path, sha, PARSER_VERSION))) is not None:
            pk, embedded = found
            reused.append(pk)
            # Vectors belong to the model that made them: a carried version is embedded
            # again under this run's phase-1 model when it has none of its vectors.
            if embedder.model_id not in embedded:
                unembedded.append(pk)
        else:
            writer.add(entry.path, sha, data)
    new_versions = writer.close()
    if settings.REPORIFT["EXACT_INDEX"]:
        # Versions indexed before exact search existed (or with it off) get their lines now.
        ensure_versions(reused)
    through = IndexRun.file_versions.through
    # Membership rows are invisible until active_run points at this run.
    through.objects.bulk_create(
        [through(indexrun_id=run.pk, fileversion_id=pk) for pk in [*reused, *new_versions]],
        batch_size=2000,
    )
    size = settings.REPORIFT["INDEX_CHUNK_FILES"]
    chunks = IndexChunk.objects.bulk_create(
        IndexChunk(run=run, number=n, version_ids=ids, embed_only=embed_only)
        for n, (ids, embed_only) in enumerate(
            [(new_versions[s : s + size], False) for s in range(0, len(new_versions), size)]
            + [(unembedded[s : s + size], True) for s in range(0, len(unembedded), size)]
        )
    )
    save_run(
        run,
        files_total=len(reused) + len(new_versions),
        files_reused=len(reused),
        files_done=len(reused),
        files_deleted=len({path for path, _, _ in active} - present),
        warnings=_capped(warnings),
        # Nothing new to parse: straight to publishing.
        phase=IndexRun.Phase.EMBEDDING if chunks else IndexRun.Phase.SWITCHING,
    )
    return [c.pk for c in chunks]


def _active_versions(repository) -> dict[tuple[str, str, str], tuple[int, list[str]]]:
    """The active generation's file versions (id, models with vectors of its units) by (path,
    sha256, parser version): a version parsed by an older parser is never reused, its file is
    parsed again."""
    if repository.active_run_id is None:
        return {}
    rows = FileVersion.objects.filter(runs=repository.active_run_id).values_list(
        "path", "sha256", "parser_version", "pk", "embedded"
    )
    return {(path, sha, parser): (pk, embedded) for path, sha, parser, pk, embedded in rows}


class _VersionWriter:
    """New file versions stored in batches, their ids in the order they were added."""

    def __init__(self, run: IndexRun) -> None:
        self.run = run
        self.ids: list[int] = []
        self._pending: list[FileVersion] = []
        self._data: list[bytes] = []  # the pending versions' bytes, for the exact index
        self._exact = settings.REPORIFT["EXACT_INDEX"]
        self._bytes = 0
        repository = run.repository
        # A crashed run may have left an exact version behind, half-embedded: it is rebuilt.
        # Versions outside the active generation are few (garbage is collected after each
        # switch), so they are read once instead of looked for file by file.
        leftovers = FileVersion.objects.filter(repository=repository, parser_version=PARSER_VERSION)
        if repository.active_run_id is not None:
            leftovers = leftovers.exclude(runs=repository.active_run_id)
        self._leftovers = {
            (path, sha): pk for pk, path, sha in leftovers.values_list("pk", "path", "sha256")
        }

    def add(self, path: str, sha: str, data: bytes) -> None:
        version = FileVersion(
            repository=self.run.repository,
            path=path,
            sha256=sha,
            parser_version=PARSER_VERSION,
            size=len(data),
            # The fastest level: a tenth more bytes than the default, compressed in little more
            # than half the time (every file of a repository passes here before its first answer).
            content=zlib.compress(data, 1),
            created_by=self.run,
        )
        self._pending.append(version)
        if self._exact:
            self._data.append(data)
        self._bytes += len(version.content)
        if len(self._pending) >= _VERSION_BATCH or self._bytes >= _VERSION_BATCH_BYTES:
            self._flush()

    def close(self) -> list[int]:
        self._flush()
        return self.ids

    def _flush(self) -> None:
        if not self._pending:
            return
        stale = [
            pk for v in self._pending if (pk := self._leftovers.get((v.path, v.sha256))) is not None
        ]
        if stale:
            delete_file_versions(FileVersion.objects.filter(pk__in=stale))
        created = [v.pk for v in FileVersion.objects.bulk_create(self._pending)]
        if self._exact:
            add_versions(zip(created, self._data, strict=True))
        self.ids += created
        self._pending, self._data, self._bytes = [], [], 0


def publish_run(*, run: IndexRun) -> None:
    """Step 3: once every chunk is done, make the run's generation the one searches read."""
    repository = run.repository
    lexical_index_for_run(run)  # built before the switch: the first query after it is fast
    release_free_heap()  # the build's temporaries
    previous = repository.active_run
    parse_warnings = [
        f"{path}: {warning}"
        for path, warning in FileVersion.objects.filter(created_by=run)
        .exclude(parse_warning="")
        .values_list("path", "parse_warning")
    ]
    run.refresh_from_db()
    with transaction.atomic():
        save_run(
            run,
            units_total=CodeUnit.objects.filter(file_version__runs=run).count(),
            warnings=_capped([*run.warnings, *parse_warnings]),
            status=IndexRun.Status.SUCCEEDED,
            phase=IndexRun.Phase.DONE,
            finished_at=timezone.now(),
        )
        repository.active_run = run
        repository.save(update_fields=["active_run"])
    IndexChunk.objects.filter(run=run).delete()
    # Only after the switch has committed may the old generation's leftovers go.
    removed = collect_garbage(repository=repository)
    _compact_static_vectors(repository.pk)
    if previous is not None:
        drop_lexical_index(previous)
        drop_saved_graphs(previous)
        _drop_other_models(run, previous)
    logger.info(
        "run %s: %s (%d reused, %d parsed), %s embedded, %s removed",
        run.pk,
        plural(run.files_total, "file"),
        run.files_reused,
        run.files_total - run.files_reused,
        plural(run.units_embedded, "unit"),
        plural(removed, "old version"),
    )


def _compact_static_vectors(repository_id: int) -> None:
    """A store of segment files reads faster as one file: fold what the run's chunks wrote."""
    static = get_static_embedder()
    compact = getattr(get_vector_store(static.model_id), "compact", None) if static else None
    if compact is not None:
        compact(repository_id=repository_id)


def _drop_other_models(run: IndexRun, previous: IndexRun) -> None:
    """Vectors of models this generation does not use (an upgraded transformer, its static
    tier) go, and so does the record that versions have them. The phase-1 model of this run's
    transformer stays, after its phase 2 too: the next run's phase 1 reuses its vectors."""
    kept = {run.embedder_model, run.phase2_model, ""}
    if run.phase2_model:
        kept.add(static_model_id(run.phase2_model))
    others = {previous.embedder_model, previous.phase2_model}
    for embedded in FileVersion.objects.filter(runs=run).values_list("embedded", flat=True):
        others.update(embedded)
    for model_id in others - kept:
        try:
            drop_model_vectors(repository_id=run.repository_id, model_id=model_id)
        except VectorStoreUnavailable as exc:  # the new generation serves all the same
            logger.warning("run %s: old model's vectors not dropped: %s", run.pk, exc)
            continue
        forget_embedded(repository_id=run.repository_id, model_id=model_id)


def _capped(warnings: list[str]) -> list[str]:
    limit = settings.REPORIFT["MAX_WARNINGS_STORED"]
    if len(warnings) <= limit:
        return warnings
    return [*warnings[:limit], f"... and {plural(len(warnings) - limit, 'more warning')}"]
