"""Exact search: the lines of a repository's active generation that match a query's literals and
regular expressions (`search.query_syntax`), each inside the unit around it.

The trigram index (`indexing.exact_index`) hands over the chunks that may match; RE2 checks
each of their lines, in linear time, so no pattern can hang a worker. A pattern with no three
characters to look up is checked against every chunk instead, up to a budget of characters,
and the answer says when it stopped. Lines come in file and line order, or, when the query has
free words too, ordered by how the ordinary search ranks the units they lie in.
"""

from __future__ import annotations

import fnmatch
import time
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate, chain

import re2
from django.db import connection

from indexing import exact_index
from indexing.file_selection import kind_for_path
from indexing.lexical import generation_key
from indexing.models import CodeUnit, ExactChunk, IndexRun, Repository
from indexing.selectors import active_generation
from indexing.unit_cache import generation_units
from reporift.words import plural
from search.exact_literals import combined, required_literals
from search.exact_units import (
    Match,
    definitions,
    innermost,
    kept,
    name_range,
    unit_spans,
    with_context,
)
from search.filters import SearchFilters
from search.query_syntax import MAX_PATTERN_MEMORY, ParsedQuery, compile_pattern
from search.results import ExactLines, LineHit, SearchError, SearchResponse, SearchResult
from search.retrieval import search_config

DEFAULT_LIMIT = 100  # lines shown when the caller does not say


def exact_config() -> dict:
    return search_config()["EXACT"]


def _generation_files(run: IndexRun) -> dict[int, str]:
    """The generation's file versions by id, with their paths."""
    return _files_of(generation_key(run), run.pk)


@lru_cache(maxsize=32)
def _files_of(key: str, run_id: int) -> dict[int, str]:
    # Cached by the generation's key, not its id alone: an id can come back after a database
    # reset (indexing.lexical.generation_key); a published generation's files never change.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v.id, v.path FROM indexing_fileversion v JOIN "
            "indexing_indexrun_file_versions m ON m.fileversion_id = v.id "
            "WHERE m.indexrun_id = %s",
            [run_id],
        )
        return dict(cursor.fetchall())


def _path_allowed(path: str, prefixes: tuple[str, ...], negated: tuple[str, ...]) -> bool:
    def under(pattern: str) -> bool:
        if any(c in pattern for c in "*?["):
            return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, f"*/{pattern}")
        return path.startswith(pattern.lstrip("/"))

    if prefixes and not any(under(p) for p in prefixes):
        return False
    return not any(under(p) for p in negated)


def _allowed_versions(files: dict[int, str], parsed: ParsedQuery, filters: SearchFilters):
    """The file versions the query's and the caller's filters keep; None when all are kept."""
    languages = set(parsed.languages) | set(filters.languages)
    if not (parsed.paths or parsed.not_paths or languages or filters.path or filters.exclude_tests):
        return None
    keep = SearchFilters(path=filters.path, exclude_tests=filters.exclude_tests)
    out = []
    for pk, path in files.items():
        if not _path_allowed(path, parsed.paths, parsed.not_paths):
            continue
        if not keep.allows(path, "function"):
            continue
        if languages and kind_for_path(path) not in languages:
            continue
        out.append(pk)
    return out


def _chunk_pattern(compiled) -> object | None:
    """The pattern read over a whole chunk as over each of its lines: its anchors at line ends
    (multi-line mode) and never across a line break (RE2's never_nl: no class, dot or escape
    matches "\\n"), so each of its matches lies in one line, a line that matches alone. None
    where a chunk's reading would differ (\\A, \\z: the text's own ends)."""
    source = compiled.pattern
    if "\\A" in source or "\\z" in source:
        return None
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    options.max_mem = MAX_PATTERN_MEMORY
    try:
        return re2.compile("(?m)" + source, options)
    except re2.error:
        return None


def _matches(rows: Iterable[exact_index.Row], patterns, chunk_patterns, count_to: int, out):
    """The matching lines of `rows` appended to `out`; True once `count_to` are there. One pass
    of the first pattern over each chunk finds its lines; the others are checked on them."""
    lead = chunk_patterns[0]
    for _pk, version, first, text in rows:
        if lead is None:
            candidates = enumerate(exact_index.file_lines(text))
        else:
            candidates = _lines_matched(lead, text)
        for offset, line in candidates:
            checked = lead is not None and len(patterns) == 1
            if not checked and not all(p.search(line) for p in patterns):
                continue
            out.append(Match(version, first + offset, line, []))
            if len(out) >= count_to:
                return True
    return False


def _lines_matched(pattern, text: str) -> list[tuple[int, str]]:
    """(offset, line) of the chunk's lines that hold a match of `pattern` (see _chunk_pattern)."""
    found = pattern.finditer(text)
    first = next(found, None)
    if first is None:
        return []
    lines = exact_index.file_lines(text)
    ends = list(accumulate(len(line) + 1 for line in lines))
    hit: dict[int, str] = {}
    for match in chain((first,), found):
        offset = bisect_right(ends, match.start())
        if offset < len(lines):
            hit.setdefault(offset, lines[offset])
    return list(hit.items())


def _ranges(line: str, patterns) -> list[tuple[int, int]]:
    spans = sorted(
        (m.start(), m.end()) for p in patterns for m in p.finditer(line) if m.end() > m.start()
    )
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _meaning_order(repository, parsed: ParsedQuery, filters: SearchFilters) -> dict[int, int]:
    """Unit id -> rank by the free words, as the ordinary search ranks them."""
    from search.services import search

    filters = replace(filters, kinds=tuple(parsed.kinds) or filters.kinds)
    ranked = search(
        repository=repository, query=parsed.words, k=search_config()["MAX_K"], filters=filters
    )
    return {r.unit.pk: r.rank for r in ranked.results}


@dataclass
class Found:
    """Every matching line (up to the count's cap), in path and line order, and how they were
    found."""

    matches: list[Match]
    files: dict[int, str]  # the generation's file versions and their paths
    narrowed_by: str
    scanned_all: bool = True
    stopped: bool = False  # the count's cap was reached
    notices: list[str] = field(default_factory=list)
    patterns: list = field(default_factory=list)  # compiled, for the matches' ranges


def find_matches(
    *, run: IndexRun, parsed: ParsedQuery, filters: SearchFilters, count_to: int
) -> Found:
    """The lines of generation `run` that match every pattern of `parsed` (or the definitions
    its `symbol:` names) and pass its qualifiers and `filters`."""
    config = exact_config()
    files = _generation_files(run)
    allowed = _allowed_versions(files, parsed, filters)
    kinds = tuple(parsed.kinds) or filters.kinds
    compiled = [compile_pattern(p) for p in parsed.patterns]
    lookup = combined([required_literals(p) for p in parsed.patterns])
    found = Found([], files, "trigram index", patterns=compiled)
    if not compiled:
        found.matches = definitions(run, files, allowed, parsed, kinds)
        found.narrowed_by = "definitions"
    elif lookup is not None:
        rows = exact_index.candidates(run_id=run.pk, lookup=lookup, version_ids=allowed)
        chunk_patterns = [_chunk_pattern(c) for c in compiled]
        found.stopped = _matches(rows, compiled, chunk_patterns, count_to, found.matches)
    else:
        found.narrowed_by = "bounded scan"
        budget, read = config["SCAN_CHARS"], 0
        chunk_patterns = [_chunk_pattern(c) for c in compiled]
        for batch in exact_index.scan(run_id=run.pk, max_chars=budget, version_ids=allowed):
            read += sum(len(row[3]) for row in batch)
            if _matches(batch, compiled, chunk_patterns, count_to, found.matches):
                found.stopped = True
                break
        else:
            found.scanned_all = read < budget
        found.notices.append(
            "no three characters of the pattern can be looked up in the trigram index: the "
            + (
                "files were read one by one"
                if found.scanned_all
                else f"first {read:,} characters of the files were read, and the rest was not"
            )
        )
    if (parsed.symbols or kinds) and compiled:
        spans = unit_spans({m.version for m in found.matches})
        found.matches = [
            m for m in found.matches if kept(spans.get(m.version, []), m.line, parsed, kinds)
        ]
    found.matches.sort(key=lambda m: (files.get(m.version, ""), m.line))
    return found


def matching_lines(
    *, repository: Repository, parsed: ParsedQuery, count_to: int = 10**7
) -> list[tuple[str, int]]:
    """Every (path, line) that matches, in order: what the benchmark compares with ripgrep."""
    run = active_generation(repository=repository)
    if run is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    found = find_matches(run=run, parsed=parsed, filters=SearchFilters(), count_to=count_to)
    return [(found.files[m.version], m.line) for m in found.matches]


def exact_search(
    *,
    repository: Repository,
    parsed: ParsedQuery,
    filters: SearchFilters | None = None,
    k: int = 10,
    limit: int | None = None,
    mode: str = "fast",
) -> SearchResponse:
    """The lines of `repository` that match every pattern of `parsed` (or the definitions its
    `symbol:` names), at most `limit` shown, with the units around them as results."""
    started = time.perf_counter()
    filters = filters or SearchFilters()
    config = exact_config()
    limit = min(limit or DEFAULT_LIMIT, config["MAX_HITS"])
    run = active_generation(repository=repository)
    if run is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    found = find_matches(run=run, parsed=parsed, filters=filters, count_to=config["MAX_COUNT"])
    matches, files, notices = found.matches, found.files, found.notices
    stopped = found.stopped
    if parsed.words:
        ranks = _meaning_order(repository, parsed, filters)
        spans = unit_spans({m.version for m in matches})

        def meaning(m: Match) -> int:
            around = [s.pk for s in spans.get(m.version, []) if s.start <= m.line <= s.end]
            return min((ranks[pk] for pk in around if pk in ranks), default=len(ranks) + 1)

        matches.sort(key=meaning)  # stable: file and line order among equals
    shown = matches[:limit]
    spans = unit_spans({m.version for m in shown})
    inner = {id(m): innermost(spans.get(m.version, []), m.line) for m in shown}
    units = generation_units(run, {s.pk for s in inner.values() if s is not None})
    hits = []
    for m, text, before, after in with_context(shown, config["CONTEXT_LINES"]):
        span = inner[id(m)]
        path = files.get(m.version, "")
        hits.append(
            LineHit(
                repository=repository.name,
                path=path,
                line=m.line,
                text=text,
                ranges=_ranges(text, found.patterns) if found.patterns else name_range(text, span),
                before=before,
                after=after,
                unit=units.get(span.pk) if span else None,
                language=(span.language if span else kind_for_path(path)) or "",
            )
        )
    per_file: dict[int, int] = {}
    for m in matches:
        per_file[m.version] = per_file.get(m.version, 0) + 1
    lines = ExactLines(
        patterns=[p.shown for p in parsed.patterns] + [f"symbol:{s}" for s in parsed.symbols],
        hits=hits,
        total=len(matches),
        files=[(repository.name, files.get(v, ""), n) for v, n in per_file.items()],
        limit=limit,
        counted_all=not stopped,
        narrowed_by=found.narrowed_by,
        scanned_all=found.scanned_all,
    )
    if lines.limit_reached:
        more = "at least " if stopped else ""
        notices.append(
            f"{more}{plural(lines.total, 'matching line')}: the first {len(hits)} are shown"
        )
    if not matches and not ExactChunk.objects.filter(file_version__runs=run.pk).exists():
        notices.append(
            f"{repository.name!r} was indexed before exact search (or with it off): "
            "re-index it to search its lines"
        )
    response = SearchResponse(
        query=" ".join(lines.patterns + ([parsed.words] if parsed.words else [])),
        mode=mode,
        mode_used="exact",
        results=_unit_results(hits, repository.name, k),
        notices=notices,
        ordered_by="meaning" if parsed.words else "path",
        lines=lines,
    )
    response.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 2)
    return response


def _unit_results(hits: list[LineHit], repository: str, k: int) -> list[SearchResult]:
    """The units the shown lines lie in, in the lines' order: what every client already shows."""
    counts: dict[int, int] = {}
    units: dict[int, CodeUnit] = {}
    for hit in hits:
        if hit.unit is not None:
            counts[hit.unit.pk] = counts.get(hit.unit.pk, 0) + 1
            units.setdefault(hit.unit.pk, hit.unit)
    results = []
    for rank, (pk, unit) in enumerate(list(units.items())[:k], start=1):
        results.append(
            SearchResult(
                rank,
                unit,
                float(counts[pk]),
                {"exact": rank},
                reason=f"{plural(counts[pk], 'matching line')} inside",
                comparable=float(counts[pk]),
                repository=repository,
            )
        )
    return results
