"""A vector store of append-only segment files, searched exactly in numpy: where the static
tier's vectors live on a single machine (`REPORIFT["STATIC_VECTOR_STORE"]`).

Phase 1 of an index run exists to make a repository searchable in seconds; Chroma took longer
to take its vectors (about 1,300 a second on the 2-core machine, most of a pydantic-sized run)
than the static tier took to compute them. Here an upsert writes one file: the batch's ids,
kinds and float16 vectors. A delete writes the ids it removes. Readers replay the files in name
order (names begin with a nanosecond clock, so later writes win) into one matrix per repository
and field, kept in memory until the folder changes; a query scores every row, exact where an
HNSW index is approximate.

The matrix is held as it is written, in float16, inside a flat faiss index that scans it with
SIMD code and one thread: a query reads half the bytes of a float32 copy, and the scan is bound
by memory, not arithmetic. At 38k units of 256 dimensions it took 1.8 to 4 ms against 7.5 to 28
ms for numpy's float32 product on the 2-core machine (OpenBLAS's second thread only contends
with the other core's work), with the same first 60 (docs/BENCHMARKS.md, "Per-query speed on
large repositories"). The scores are the same floats summed in another order.

Files are written under temporary names and renamed into place, so a reader never sees half of
one; compaction (`compact`, after a run's switch) folds a folder's files into one and removes
exactly the files it read, so writes that arrive meanwhile survive. The folder must be one that
every process sees (workers on other machines: use Chroma, the default when CHROMA_HOST is set).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from indexing.store import FIELDS, VectorHit, VectorRecord, check_field, rows_by_repository
from reporift.locks import file_lock

_COMPACT_AT = 32  # files per folder before a compaction is worth it


@dataclass
class _Matrix:
    listing: tuple[str, ...]
    ids: np.ndarray  # str
    kinds: np.ndarray  # str
    # float16, rows L2-normalised as written: a view of `index`'s codes (one copy in memory).
    vectors: np.ndarray
    row_of: dict[str, int]
    # The folder's modification time when its listing was read (0: not known): see `_matrix`.
    stamp: int = 0
    index: object | None = None  # a faiss IndexScalarQuantizer (fp16) holding `vectors`


def _held(
    listing: tuple[str, ...],
    ids: np.ndarray,
    kinds: np.ndarray,
    vectors: np.ndarray,
    row_of: dict[str, int],
) -> _Matrix:
    """The matrix with its rows copied into a flat float16 faiss index, which the queries scan;
    its `vectors` are the index's own codes seen as a float16 array."""
    rows, dimension = vectors.shape if vectors.ndim == 2 else (0, 0)
    if not rows or not dimension:
        return _Matrix(listing, ids, kinds, np.zeros((rows, dimension), np.float16), row_of)
    import faiss

    index = faiss.IndexScalarQuantizer(
        dimension, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
    )
    # An fp16 code is the IEEE half itself: the bytes go in as they are, with no float32 copy.
    codes = np.ascontiguousarray(vectors, dtype=np.float16).view(np.uint8).ravel()
    faiss.copy_array_to_vector(codes, index.codes)
    index.ntotal = rows
    held = faiss.rev_swig_ptr(index.codes.data(), codes.size).view(np.float16)
    return _Matrix(listing, ids, kinds, held.reshape(rows, dimension), row_of, index=index)


def _kind_selector(matrix: _Matrix, kinds: Sequence[str]):
    """faiss's filter for the rows of these kinds (the bitmap is kept alive on the selector)."""
    import faiss

    bits = np.packbits(np.isin(matrix.kinds, list(kinds)), bitorder="little")
    selector = faiss.IDSelectorBitmap(len(matrix.ids), faiss.swig_ptr(bits))
    selector.bits_array = bits
    return faiss.SearchParameters(sel=selector)


# A folder's modification time is trusted to say "nothing changed" only once it is this old:
# two changes within one tick of the file system's clock would share a time, so a recent
# time is checked by listing the folder, as before.
_SETTLED_NS = 2_000_000_000


class SegmentVectorStore:
    # Its vectors are in memory already: scoring candidates is a lookup (no mirror needed).
    in_memory = True

    def __init__(self, *, path: str, model_id: str | None = None) -> None:
        safe = "".join(c if c.isalnum() or c in "-." else "-" for c in (model_id or "default"))
        self.root = Path(path) / safe
        self._cache: dict[Path, _Matrix] = {}
        self._lock = threading.Lock()

    def _folder(self, repository_id: int, field: str) -> Path:
        check_field(field)
        return self.root / f"r{repository_id}" / field

    # Writes -------------------------------------------------------------------------------

    def upsert(
        self, records: Sequence[VectorRecord], vectors: np.ndarray, *, field: str = "code"
    ) -> None:
        for repository_id, rows in rows_by_repository(records, vectors).items():
            _write(
                self._folder(repository_id, field),
                "seg.npz",
                ids=np.array([records[r].vector_id for r in rows], dtype=str),
                kinds=np.array([records[r].kind for r in rows], dtype=str),
                vectors=np.asarray(vectors[rows], dtype=np.float16),
            )

    def delete(self, vector_ids: Sequence[str], *, repository_id: int) -> None:
        if not vector_ids:
            return
        for field in FIELDS:
            folder = self._folder(repository_id, field)
            if folder.is_dir():
                _write(folder, "del.npz", ids=np.array(list(vector_ids), dtype=str))

    def delete_repository(self, repository_id: int) -> None:
        shutil.rmtree(self.root / f"r{repository_id}", ignore_errors=True)

    def compact(self, *, repository_id: int) -> None:
        """Fold each field's files into one (after a run's switch: reads get cheaper)."""
        for field in FIELDS:
            folder = self._folder(repository_id, field)
            if not folder.is_dir() or len(_listing(folder)) < _COMPACT_AT:
                continue
            with file_lock(folder.parent / f".{field}.compact.lock"):
                matrix = self._matrix(folder)
                if matrix is None:
                    continue
                newest = matrix.listing[-1].split("-", 1)[0]
                folded = _write(
                    folder,
                    "seg.npz",
                    stamp=newest,
                    ids=matrix.ids,
                    kinds=matrix.kinds,
                    vectors=matrix.vectors,
                )
                for name in matrix.listing:
                    (folder / name).unlink(missing_ok=True)
                # The file holds this very matrix (its vectors were float16 already): this
                # process's next read (the first search after a switch) need not load it again.
                # A write that arrived meanwhile changes the listing, and is replayed.
                with self._lock:
                    self._cache[folder] = replace(matrix, listing=(folded,))

    # Reads --------------------------------------------------------------------------------

    def query(
        self,
        vector: np.ndarray,
        *,
        repository_id: int,
        n: int,
        kinds: Sequence[str] | None = None,
        field: str = "code",
    ) -> list[VectorHit]:
        matrix = self._matrix(self._folder(repository_id, field))
        if matrix is None or matrix.index is None:
            return []
        import faiss

        # This thread's: a second OpenMP thread only contends with the other searches' core.
        faiss.omp_set_num_threads(1)
        n = min(max(1, n), len(matrix.ids))
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        params = _kind_selector(matrix, kinds) if kinds else None
        scores, rows = matrix.index.search(query, n, params=params)
        found = rows[0] >= 0  # fewer rows of the kinds than asked for
        top, values = rows[0][found], scores[0][found]
        # Converted as whole arrays: element by element costs more than the scan above.
        return [
            VectorHit(i, v) for i, v in zip(matrix.ids[top].tolist(), values.tolist(), strict=True)
        ]

    def scores(
        self,
        vector: np.ndarray,
        vector_ids: Sequence[str],
        *,
        repository_id: int,
        field: str = "code",
    ) -> dict[str, float]:
        matrix = self._matrix(self._folder(repository_id, field))
        if matrix is None:
            return {}
        row_of = matrix.row_of
        rows = {i: row_of[i] for i in vector_ids if i in row_of}
        if not rows:
            return {}
        # A hundred-odd rows: gathered and widened, a fraction of a millisecond.
        gathered = matrix.vectors[list(rows.values())].astype(np.float32)
        values = gathered @ np.asarray(vector, dtype=np.float32)
        return dict(zip(rows, values.tolist(), strict=True))

    def all_vectors(
        self, *, repository_id: int, field: str = "code"
    ) -> tuple[list[str], np.ndarray]:
        matrix = self._matrix(self._folder(repository_id, field))
        if matrix is None:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [str(i) for i in matrix.ids], matrix.vectors.astype(np.float32)

    def count(self, *, repository_id: int, field: str = "code") -> int:
        matrix = self._matrix(self._folder(repository_id, field))
        return 0 if matrix is None else len(matrix.ids)

    def _matrix(self, folder: Path) -> _Matrix | None:
        """The folder's live vectors, replayed from its files, cached until they change. A
        file removed by a compaction between listing and reading: list again.

        Every search asks this of two folders, twice: a folder whose modification time is
        the one its cached matrix was read at, and settled, has not changed (a write or a
        compaction renames or removes a file in it), and a `stat` answers that for a tenth
        of a listing's cost."""
        for _ in range(5):
            try:
                stamp = os.stat(folder).st_mtime_ns
            except FileNotFoundError:
                return None
            with self._lock:
                cached = self._cache.get(folder)
            settled = time.time_ns() - stamp > _SETTLED_NS
            if cached is not None and settled and cached.stamp == stamp:
                return cached
            listing = _listing(folder)
            if not listing:
                return None
            if cached is not None and cached.listing == listing:
                if settled and cached.stamp != stamp:
                    with self._lock:
                        self._cache[folder] = replace(cached, stamp=stamp)
                return cached
            try:
                matrix = _replay(folder, listing)
            except FileNotFoundError:
                continue
            # Read after the stamp: a change since is newer than it, and is listed next time.
            matrix = replace(matrix, stamp=stamp if settled else 0)
            with self._lock:
                self._cache[folder] = matrix
            return matrix
        raise RuntimeError(f"{folder} kept changing while it was read")


def _listing(folder: Path) -> tuple[str, ...]:
    try:
        return tuple(sorted(n for n in os.listdir(folder) if n.endswith(".npz")))
    except FileNotFoundError:
        return ()


def _load(folder: Path, listing: tuple[str, ...]) -> list[tuple[bool, dict[str, np.ndarray]]]:
    """Each file's arrays, and whether it deletes."""
    parts = []
    for name in listing:
        with np.load(folder / name) as part:
            parts.append((name.endswith(".del.npz"), {key: part[key] for key in part.files}))
    return parts


def _replay(folder: Path, listing: tuple[str, ...]) -> _Matrix:
    parts = _load(folder, listing)
    if not any(deleted for deleted, _ in parts):
        ids = np.concatenate([part["ids"] for _, part in parts])
        if len(ids) and len(np.unique(ids)) == len(ids):
            # Each id written once, none deleted (a first index, a compacted folder): the
            # files in order are the matrix, with no replay of them row by row.
            return _held(
                listing,
                ids,
                np.concatenate([part["kinds"] for _, part in parts]),
                np.concatenate([part["vectors"] for _, part in parts]),
                {i: r for r, i in enumerate(ids.tolist())},
            )
    return _fold(listing, parts)


def _fold(listing: tuple[str, ...], parts: list[tuple[bool, dict[str, np.ndarray]]]) -> _Matrix:
    """Replay writes and deletes in order: a later write of an id wins, a delete removes it."""
    rows: dict[str, tuple[str, np.ndarray]] = {}
    for deleted, part in parts:
        if deleted:
            for i in part["ids"]:
                rows.pop(str(i), None)
            continue
        for i, kind, vector in zip(part["ids"], part["kinds"], part["vectors"], strict=True):
            rows[str(i)] = (str(kind), vector)
    ids = np.array(list(rows), dtype=str)
    kinds = np.array([kind for kind, _ in rows.values()], dtype=str)
    dimension = next(iter(rows.values()))[1].shape[0] if rows else 0
    vectors = np.zeros((len(rows), dimension), dtype=np.float16)
    for row, (_, vector) in enumerate(rows.values()):
        vectors[row] = vector
    return _held(listing, ids, kinds, vectors, {i: r for r, i in enumerate(rows)})


def _write(folder: Path, suffix: str, *, stamp: str | None = None, **arrays: np.ndarray) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{stamp or f'{time.time_ns():020d}'}-{uuid.uuid4().hex[:8]}.{suffix}"
    partial = folder / f".{name}.partial"
    with open(partial, "wb") as out:
        np.savez(out, **arrays)
    partial.replace(folder / name)
    return name
