"""One index run, phase by phase: fetch, scan and diff by hash, parse, embed, store, switch.

Incremental by construction: a file whose (path, sha256) is already in the active generation is
carried over as-is, so only new or changed files are parsed and embedded. Everything a run
creates stays invisible until the final switch of `Repository.active_run`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from indexing.documents import collect_document_chunks
from indexing.embedding import get_embedder
from indexing.generations import collect_garbage, delete_file_versions
from indexing.lexical import drop_lexical_index, lexical_index_for_run
from indexing.models import CodeUnit, DocumentChunk, FileVersion, IndexRun
from indexing.parsing import parse_source
from indexing.sources import Source, SourceFileEntry, iter_python_files
from indexing.store import VectorRecord, get_vector_store
from indexing.unit_text import unit_text

logger = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.5
PARSE_COMMIT_FILES = 200


_COUNTERS = (
    "files_total",
    "files_done",
    "files_reused",
    "files_deleted",
    "files_with_errors",
    "units_total",
    "units_to_embed",
    "units_embedded",
)


@dataclass
class _ScannedFile:
    entry: SourceFileEntry
    sha256: str


class IndexPipeline:
    def __init__(
        self,
        *,
        run: IndexRun,
        source: Source,
        workdir: Path,
        on_progress: Callable[[IndexRun], None] | None = None,
    ) -> None:
        self.on_progress = on_progress
        self.run = run
        self.repository = run.repository
        self.source = source
        self.workdir = workdir
        self.warnings: list[str] = []
        self._last_progress = 0.0
        self.embedder = get_embedder()
        self._paths_are_words = self.repository.source_kind != "snippets"
        self.store = get_vector_store()

    def execute(self) -> None:
        for counter in _COUNTERS:
            setattr(self.run, counter, 0)
        self._progress(phase=IndexRun.Phase.FETCHING, force=True)
        fetched = self.source.fetch(self.workdir)
        self.warnings.extend(fetched.warnings)
        self.run.commit_sha = fetched.commit_sha
        self.run.embedder_model = self.embedder.model_id
        self.run.save(update_fields=["commit_sha", "embedder_model"])

        self._progress(phase=IndexRun.Phase.SCANNING, force=True)
        scanned = self._scan(fetched.root)
        active = self._active_versions()
        DocumentChunk.objects.filter(run=self.run).delete()  # a redelivered run starts over
        DocumentChunk.objects.bulk_create(
            DocumentChunk(run=self.run, path=path, text=text)
            for path, text in collect_document_chunks(fetched.root)
        )
        reused, changed = self._diff(scanned, active)
        self.run.files_total = len(scanned)
        self.run.files_reused = len(reused)
        self.run.files_done = len(reused)
        present = {item.entry.path for item in scanned}
        self.run.files_deleted = len({path for path, _ in active} - present)
        self._progress(phase=IndexRun.Phase.PARSING, force=True)

        new_versions = self._parse(changed)
        self._embed(new_versions)
        self._switch([*reused, *new_versions])

    # Phases -------------------------------------------------------------------------------

    def _scan(self, root: Path) -> list[_ScannedFile]:
        entries = iter_python_files(
            root, max_file_bytes=settings.REPORIFT["MAX_FILE_BYTES"], warnings=self.warnings
        )
        return [
            _ScannedFile(entry, hashlib.sha256(entry.absolute.read_bytes()).hexdigest())
            for entry in entries
        ]

    def _active_versions(self) -> dict[tuple[str, str], int]:
        active = self.repository.active_run_id
        if active is None:
            return {}
        rows = FileVersion.objects.filter(runs=active).values_list("path", "sha256", "pk")
        return {(path, sha): pk for path, sha, pk in rows}

    def _diff(
        self, scanned: list[_ScannedFile], active: dict[tuple[str, str], int]
    ) -> tuple[list[int], list[_ScannedFile]]:
        reused: list[int] = []
        changed: list[_ScannedFile] = []
        for item in scanned:
            pk = active.get((item.entry.path, item.sha256))
            if pk is None:
                changed.append(item)
            else:
                reused.append(pk)
        return reused, changed

    def _parse(self, changed: list[_ScannedFile]) -> list[int]:
        created: list[int] = []
        for start in range(0, len(changed), PARSE_COMMIT_FILES):
            batch = changed[start : start + PARSE_COMMIT_FILES]
            with transaction.atomic():
                for item in batch:
                    created.append(self._parse_file(item))
                    self.run.files_done += 1
                    self._progress()
        return created

    def _parse_file(self, item: _ScannedFile) -> int:
        path = item.entry.path
        source = item.entry.absolute.read_bytes()
        parsed = parse_source(source)
        warning = ""
        if parsed.decoded_with_replacement:
            warning = "not valid UTF-8; undecodable bytes replaced"
        if parsed.has_errors:
            lines = ", ".join(map(str, parsed.error_lines[:5]))
            warning = "; ".join(filter(None, [warning, f"syntax errors near line(s) {lines}"]))
        if warning:
            self.run.files_with_errors += 1
            self.warnings.append(f"{path}: {warning} ({len(parsed.units)} units recovered)")
        # A crashed run may have left this exact version behind, half-embedded: rebuild it.
        leftover = FileVersion.objects.filter(
            repository=self.repository, path=path, sha256=item.sha256
        )
        if self.repository.active_run_id is not None:
            leftover = leftover.exclude(runs=self.repository.active_run_id)
        delete_file_versions(leftover)
        version = FileVersion.objects.create(
            repository=self.repository,
            path=path,
            sha256=item.sha256,
            size=item.entry.size,
            parse_warning=warning,
            created_by=self.run,
        )
        CodeUnit.objects.bulk_create(
            CodeUnit(
                file_version=version,
                repository=self.repository,
                path=path,
                kind=u.kind,
                name=u.name[:300],
                qualname=u.qualname[:1000],
                parent_qualname=u.parent_qualname[:1000],
                class_name=u.class_name[:1000],
                start_line=u.start_line,
                end_line=u.end_line,
                signature=u.signature,
                docstring=u.docstring,
                code=u.code,
                decorators=list(u.decorators),
                calls=list(u.calls),
                is_async=u.is_async,
            )
            for u in parsed.units
        )
        self.run.units_to_embed += len(parsed.units)
        return version.pk

    def _embed(self, version_ids: list[int]) -> None:
        self._progress(phase=IndexRun.Phase.EMBEDDING, force=True)
        style = settings.REPORIFT["EMBED_TEXT"]
        batch_size = settings.REPORIFT["EMBED_BATCH_UNITS"]
        units = CodeUnit.objects.filter(file_version_id__in=version_ids).order_by("pk")
        for start in range(0, units.count(), batch_size):
            batch = list(units[start : start + batch_size])
            vectors = self.embedder.embed(
                [unit_text(u, style, include_path=self._paths_are_words) for u in batch]
            )
            self.store.upsert(
                [VectorRecord(u.vector_id, self.repository.pk, u.kind, u.path) for u in batch],
                vectors,
            )
            self.run.units_embedded += len(batch)
            self._progress()

    def _switch(self, version_ids: list[int]) -> None:
        self._progress(phase=IndexRun.Phase.SWITCHING, force=True)
        through = IndexRun.file_versions.through
        # Membership rows are invisible until active_run points at this run, so they and the
        # lexical index can be written before the switch: the first query after it is fast.
        through.objects.bulk_create(
            [through(indexrun_id=self.run.pk, fileversion_id=pk) for pk in version_ids],
            batch_size=2000,
        )
        lexical_index_for_run(self.run.pk)
        previous_run_id = self.repository.active_run_id
        with transaction.atomic():
            self.run.units_total = CodeUnit.objects.filter(
                file_version_id__in=self.run.file_versions.values("pk")
            ).count()
            self.run.status = IndexRun.Status.SUCCEEDED
            self.run.phase = IndexRun.Phase.DONE
            self.run.finished_at = timezone.now()
            self._save_progress()
            self.repository.active_run = self.run
            self.repository.save(update_fields=["active_run"])
        # Only after the switch has committed may the old generation's leftovers go.
        removed = collect_garbage(repository=self.repository)
        if previous_run_id is not None:
            drop_lexical_index(previous_run_id)
        logger.info(
            "run %s: %d files (%d reused, %d parsed), %d units embedded, %d old versions removed",
            self.run.pk,
            self.run.files_total,
            self.run.files_reused,
            self.run.files_total - self.run.files_reused,
            self.run.units_embedded,
            removed,
        )

    # Progress -----------------------------------------------------------------------------

    def _progress(self, *, phase: str | None = None, force: bool = False) -> None:
        if phase is not None:
            self.run.phase = phase
        now = time.monotonic()
        if force or now - self._last_progress >= PROGRESS_EVERY_S:
            self._last_progress = now
            self._save_progress()

    def _save_progress(self) -> None:
        limit = settings.REPORIFT["MAX_WARNINGS_STORED"]
        warnings = self.warnings[:limit]
        if len(self.warnings) > limit:
            warnings.append(f"... and {len(self.warnings) - limit} more warnings")
        self.run.warnings = warnings
        self.run.heartbeat_at = timezone.now()
        self.run.save(
            update_fields=[*_COUNTERS, "phase", "status", "warnings", "heartbeat_at", "finished_at"]
        )
        if self.on_progress is not None:
            self.on_progress(self.run)
