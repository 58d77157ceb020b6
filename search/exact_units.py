"""Exact search's lines and the units around them: which function, method or class encloses a
line (from the units' spans), which lines `kind:` and `symbol:` keep, the definitions `symbol:`
names alone, and the context lines read back from the chunks (`search.exact`)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass

from indexing import exact_index
from indexing.models import CodeUnit, ExactChunk, IndexRun
from search.query_syntax import ParsedQuery

DEFINITION_KINDS = ("function", "method", "class")


@dataclass(frozen=True)
class Span:
    pk: int
    kind: str
    name: str
    qualname: str
    start: int
    end: int
    language: str


@dataclass
class Match:
    version: int
    line: int
    text: str
    ranges: list[tuple[int, int]]


def name_range(line: str, span: Span | None) -> list[tuple[int, int]]:
    """Where a definition's line names it (`symbol:` alone): what the page marks."""
    at = line.find(span.name) if span is not None and span.name else -1
    return [] if at < 0 else [(at, at + len(span.name))]


def unit_spans(version_ids: Iterable[int]) -> dict[int, list[Span]]:
    """The units of these file versions, narrowest first, without their code."""
    out: dict[int, list[Span]] = {}
    ids = list(version_ids)
    for start in range(0, len(ids), 2000):
        rows = CodeUnit.objects.filter(file_version_id__in=ids[start : start + 2000]).values_list(
            "file_version_id",
            "pk",
            "kind",
            "name",
            "qualname",
            "start_line",
            "end_line",
            "language",
        )
        for version, *span in rows:
            out.setdefault(version, []).append(Span(*span))
    for spans in out.values():
        spans.sort(key=lambda s: (s.kind not in DEFINITION_KINDS, s.end - s.start))
    return out


def names_symbol(span: Span, symbols: tuple[str, ...]) -> bool:
    for symbol in symbols:
        if any(c in symbol for c in "*?["):
            if fnmatch.fnmatchcase(span.name, symbol) or fnmatch.fnmatchcase(span.qualname, symbol):
                return True
        elif symbol in (span.name, span.qualname) or span.qualname.endswith("." + symbol):
            return True
    return False


def kept(spans: list[Span], line: int, parsed: ParsedQuery, kinds: tuple[str, ...]) -> bool:
    around = [s for s in spans if s.start <= line <= s.end]
    if kinds and not any(s.kind in kinds for s in around):
        return False
    return not parsed.symbols or any(names_symbol(s, parsed.symbols) for s in around)


def innermost(spans: list[Span], line: int) -> Span | None:
    return next((s for s in spans if s.start <= line <= s.end), None)


def definitions(run: IndexRun, files, allowed, parsed: ParsedQuery, kinds) -> list[Match]:
    """`symbol:` alone: the first line of each unit of that name."""
    units = CodeUnit.objects.filter(file_version__runs=run.pk)
    if allowed is not None:
        units = units.filter(file_version_id__in=allowed)
    if kinds:
        units = units.filter(kind__in=kinds)
    plain = [s for s in parsed.symbols if not any(c in s for c in "*?[")]
    if len(plain) == len(parsed.symbols):
        tails = [s.rsplit(".", 1)[-1] for s in plain]
        units = units.filter(name__in=tails)
    rows = units.values_list(
        "file_version_id", "pk", "kind", "name", "qualname", "start_line", "end_line", "language"
    )
    out = []
    for version, *fields in rows:
        span = Span(*fields)
        if names_symbol(span, parsed.symbols):
            out.append(Match(version, span.start, "", []))
    return out


def line_texts(wanted: dict[int, set[int]]) -> dict[tuple[int, int], str]:
    """The text of the (file version, line) pairs asked for, from the chunks that hold them."""
    out: dict[tuple[int, int], str] = {}
    span = exact_index.CHUNK_LINES
    for version, lines in wanted.items():
        chunks = ExactChunk.objects.filter(
            file_version_id=version,
            first_line__gte=max(1, min(lines) - span),
            first_line__lte=max(lines),
        ).values_list("first_line", "text")
        for first, text in chunks:
            for offset, line in enumerate(exact_index.file_lines(text)):
                if first + offset in lines:
                    out[(version, first + offset)] = line
    return out


def with_context(
    matches: list[Match], context: int
) -> list[tuple[Match, str, list[str], list[str]]]:
    """Each match with its line's text and up to `context` lines before and after it."""
    wanted: dict[int, set[int]] = {}
    for m in matches:
        wanted.setdefault(m.version, set()).update(
            range(max(1, m.line - context), m.line + context + 1)
        )
    texts = line_texts(wanted)
    out = []
    for m in matches:
        before = [
            texts[(m.version, n)]
            for n in range(m.line - context, m.line)
            if (m.version, n) in texts
        ]
        after = []
        for n in range(m.line + 1, m.line + context + 1):
            if (m.version, n) not in texts:
                break  # the end of the file
            after.append(texts[(m.version, n)])
        out.append((m, m.text or texts.get((m.version, m.line), ""), before, after))
    return out
