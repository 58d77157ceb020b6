"""The exact index: every indexed file's lines in chunks (`ExactChunk`), under the database's own
trigram index, so that a literal or a regular expression reads only the chunks that may hold it.

- SQLite (the embedded default): an FTS5 table with the `trigram` tokenizer over the chunks'
  text (migration 0016), without positions (`detail=none`): a literal is looked up as the AND of
  its trigrams, which finds every chunk that holds it and a few that do not. Chunks are written
  once: `add_versions` writes their FTS rows, a trigger deletes them with the chunks.
- PostgreSQL: pg_trgm's GIN index serves `LIKE '%literal%'` (ILIKE for any case).

Either way the candidates are a superset; `search.exact` checks each line with RE2. The chunks
hang off file versions, so they are made once per new version in phase 1 of indexing (before
the switch: a failed run's versions and their chunks go, the previous generation keeps serving),
carried by every generation that keeps the version, and deleted with it and with the
repository.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.db import DatabaseError, connection, transaction

from indexing.models import ExactChunk, FileVersion

# A chunk holds at most this many lines or characters (a longer line is a chunk of its own):
# small enough that a candidate costs little to check, large enough that the index has few rows.
CHUNK_LINES = 32
CHUNK_CHARS = 4096
# A literal yields at most this many trigrams to look up: spread over it, they select as well
# as all of them, and the query stays short.
MAX_TRIGRAMS = 16
FTS_TABLE = "indexing_exactchunk_fts"
MEMBERSHIP = "indexing_indexrun_file_versions"


def file_lines(text: str) -> list[str]:
    """The lines as a line-oriented tool sees them: split at "\\n" (a "\\r" stays on its line),
    no empty line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def searchable_text(data: bytes) -> str | None:
    """The file's text, or None for a binary one (a NUL byte), which line tools skip too."""
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def chunk_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each chunk of the file's lines."""
    lines = file_lines(text)
    start, size = 0, 0
    for i, line in enumerate(lines):
        if i > start and (i - start >= CHUNK_LINES or size + len(line) > CHUNK_CHARS):
            yield start + 1, "\n".join(lines[start:i])
            start, size = i, 0
        size += len(line) + 1
    if start < len(lines):
        yield start + 1, "\n".join(lines[start:])


def add_versions(versions: Iterable[tuple[int, bytes]]) -> int:
    """Chunks for new file versions, given as (version id, file bytes); how many were made."""
    rows = [
        (pk, first, text)
        for pk, data in versions
        if (decoded := searchable_text(data)) is not None
        for first, text in chunk_lines(decoded)
    ]
    if not rows:
        return 0
    # One transaction: in autocommit each row would be one, and FTS5 writes a segment of its
    # index at every commit (6.6 MB of Go: 5.1 s so, against 1.8 s).
    with transaction.atomic():
        if connection.vendor != "sqlite":
            ExactChunk.objects.bulk_create(
                [ExactChunk(file_version_id=v, first_line=f, text=t) for v, f, t in rows],
                batch_size=2000,
            )
            return len(rows)
        # SQLite: the rows and their FTS5 entries written by plain statements, with ids taken
        # under the write lock the transaction holds (it begins IMMEDIATE); FTS5 is written
        # here, not by a trigger per row (migration 0018). 6.6 MB of Go: 1.8 s by the ORM,
        # about 1.2 s so.
        with connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(MAX(id), 0) FROM indexing_exactchunk")
            first_id = int(cursor.fetchone()[0]) + 1
            cursor.executemany(
                "INSERT INTO indexing_exactchunk (id, file_version_id, first_line, text) "
                "VALUES (%s, %s, %s, %s)",
                [(first_id + i, *row) for i, row in enumerate(rows)],
            )
            cursor.executemany(
                f"INSERT INTO {FTS_TABLE}(rowid, text) VALUES (%s, %s)",
                [(first_id + i, row[2]) for i, row in enumerate(rows)],
            )
    return len(rows)


def ensure_versions(version_ids: Sequence[int]) -> int:
    """Chunks for versions that have none yet (indexed before the exact index existed), from
    their stored bytes; how many versions were filled in."""
    if not version_ids:
        return 0
    have = set()
    for start in range(0, len(version_ids), 2000):
        batch = version_ids[start : start + 2000]
        have.update(
            ExactChunk.objects.filter(file_version_id__in=batch)
            .values_list("file_version_id", flat=True)
            .distinct()
        )
    missing = [pk for pk in version_ids if pk not in have]
    filled = 0
    for start in range(0, len(missing), 200):
        versions = FileVersion.objects.filter(pk__in=missing[start : start + 200]).exclude(
            content=b""
        )
        pairs = [(v.pk, data) for v in versions if (data := v.data())]
        add_versions(pairs)
        filled += len(pairs)
    return filled


@dataclass(frozen=True)
class Lookup:
    """What the trigram index is asked: every clause must hold, a clause holds when one of its
    literals is in the chunk (`search.exact.required_literals` derives them from a pattern)."""

    clauses: tuple[tuple[str, ...], ...]
    ignore_case: bool = False


def trigrams(literal: str) -> list[str]:
    grams = list(dict.fromkeys(literal[i : i + 3] for i in range(len(literal) - 2)))
    if len(grams) <= MAX_TRIGRAMS:
        return grams
    step = (len(grams) - 1) / (MAX_TRIGRAMS - 1)
    return list(dict.fromkeys(grams[round(i * step)] for i in range(MAX_TRIGRAMS)))


def _fts_query(lookup: Lookup) -> str:
    def quoted(gram: str) -> str:
        return '"' + gram.replace('"', '""') + '"'

    def literal(text: str) -> str:
        return "(" + " AND ".join(quoted(g) for g in trigrams(text)) + ")"

    return " AND ".join(
        "(" + " OR ".join(literal(text) for text in clause) + ")" for clause in lookup.clauses
    )


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


Row = tuple[int, int, int, str]  # chunk id, file version id, first line, text


def candidates(
    *, run_id: int, lookup: Lookup, version_ids: Sequence[int] | None = None
) -> Iterator[Row]:
    """The chunks of the generation that may match, by the engine's trigram index, in file and
    line order, read as they are used (a caller that has counted enough stops reading).
    `version_ids`: only those files (a path or language filter)."""
    member = f"JOIN {MEMBERSHIP} m ON m.fileversion_id = c.file_version_id AND m.indexrun_id = %s"
    only, only_params = _only(version_ids)
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                f"SELECT c.id, c.file_version_id, c.first_line, c.text FROM {FTS_TABLE} f "
                f"JOIN indexing_exactchunk c ON c.id = f.rowid {member} "
                f"WHERE {FTS_TABLE} MATCH %s {only} ORDER BY c.file_version_id, c.first_line",
                [run_id, _fts_query(lookup), *only_params],
            )
        else:
            like = "ILIKE" if lookup.ignore_case else "LIKE"
            where = " AND ".join(
                "(" + " OR ".join(f"c.text {like} %s" for _ in clause) + ")"
                for clause in lookup.clauses
            )
            params = [_like(text) for clause in lookup.clauses for text in clause]
            cursor.execute(
                f"SELECT c.id, c.file_version_id, c.first_line, c.text FROM indexing_exactchunk c "
                f"{member} WHERE {where} {only} ORDER BY c.file_version_id, c.first_line",
                [run_id, *params, *only_params],
            )
        while rows := cursor.fetchmany(500):
            yield from rows


def scan(
    *, run_id: int, max_chars: int, version_ids: Sequence[int] | None = None
) -> Iterator[list[Row]]:
    """Every chunk of the generation in file and line order, in batches, until `max_chars` of
    text have been read: the bounded scan for a pattern with no trigram to look up."""
    only, only_params = _only(version_ids)
    read, after = 0, (0, 0)
    with connection.cursor() as cursor:
        while read < max_chars:
            cursor.execute(
                f"SELECT c.id, c.file_version_id, c.first_line, c.text FROM indexing_exactchunk c "
                f"JOIN {MEMBERSHIP} m ON m.fileversion_id = c.file_version_id "
                f"AND m.indexrun_id = %s WHERE (c.file_version_id > %s OR "
                f"(c.file_version_id = %s AND c.first_line > %s)) {only} "
                f"ORDER BY c.file_version_id, c.first_line LIMIT 500",
                [run_id, after[0], after[0], after[1], *only_params],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            kept = []
            for row in rows:
                if read >= max_chars:
                    break
                kept.append(row)
                read += len(row[3])
            yield kept
            after = (rows[-1][1], rows[-1][2])


def _only(version_ids: Sequence[int] | None) -> tuple[str, list[int]]:
    if version_ids is None:
        return "", []
    if not version_ids:
        return "AND 1 = 0", []
    return f"AND c.file_version_id IN ({', '.join(['%s'] * len(version_ids))})", list(version_ids)


def index_size(*, repository_id: int | None = None) -> dict[str, int]:
    """The exact index's bytes on disk: the chunks' table with its trigram index, for every
    repository (`all_bytes_on_disk`); with `repository_id`, that repository's chunks and
    characters in its active generation and its share of the bytes (`bytes_on_disk`, in
    proportion to its characters: the engines do not count bytes per row). -1 where the engine
    cannot say (an SQLite built without its dbstat table)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            try:
                cursor.execute(
                    "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE %s",
                    ["indexing_exactchunk%"],
                )
                disk = int(cursor.fetchone()[0])
            except DatabaseError:  # built without the dbstat table: say so, don't guess
                disk = -1
        else:
            cursor.execute("SELECT pg_total_relation_size('indexing_exactchunk')")
            disk = int(cursor.fetchone()[0])
        out = {"all_bytes_on_disk": disk}
        if repository_id is None:
            return out
        cursor.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(c.text)), 0) FROM indexing_exactchunk c "
            f"JOIN {MEMBERSHIP} m ON m.fileversion_id = c.file_version_id "
            "JOIN indexing_repository r ON m.indexrun_id = r.active_run_id WHERE r.id = %s",
            [repository_id],
        )
        chunks, chars = (int(v) for v in cursor.fetchone())
        cursor.execute("SELECT COALESCE(SUM(LENGTH(text)), 0) FROM indexing_exactchunk")
        every = int(cursor.fetchone()[0])
    share = round(disk * chars / every) if every and disk >= 0 else (0 if disk >= 0 else -1)
    return out | {"chunks": chunks, "text_chars": chars, "bytes_on_disk": share}
