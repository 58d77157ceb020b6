"""The machinery every text format shares: a tree of sections over a file's lines, cut into
sized `section` units.

A format's reader (indexing.text_formats.prose, .config, .build, .sql, .markup) only finds where
its sections start and what they are called; from there each section runs to the next one's
start, a section too large for one unit is cut at its children (a YAML key's own keys) or, with
none, into parts that fit (`Name (2)`, `Name (3)`...), and every line of the file lands in
exactly one unit. A file its reader refuses (`NotReadable`) or in which it finds nothing is cut
into plain windows named after the file.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from indexing.units import SECTION, ParsedFile, ParsedUnit

MAX_LINES = 60
MAX_CHARS = 3000


@dataclass(frozen=True)
class TextFormat:
    """One format read here: all it adds to the shared machinery is data and its reader."""

    name: str  # the units' language (`markdown`, `yaml`...)
    read: Callable[[Doc], list[Section]]  # where its sections start; may raise NotReadable
    suffixes: str = ""  # file name endings, space-separated (`.yml .yaml`)
    names: tuple[str, ...] = ()  # whole file names, lower case (`dockerfile`, `.editorconfig`)
    # Name prefixes before a dot: `Dockerfile.dev`, `Makefile.am` (automake is make syntax).
    stems: tuple[str, ...] = ()
    separator: str = "."  # between the parts of a qualname (`jobs.test`, `Usage > Install`)
    titled: bool = False  # the file's first heading is its summary
    merge_one_liners: bool = False  # runs of one-line keys are one unit, not one unit each


@dataclass
class Section:
    name: str
    start: int  # 0-based line index, inclusive
    end: int = -1  # 0-based, exclusive; set when the next section starts
    signature: str = ""
    docstring: str = ""
    path: tuple[str, ...] = ()  # qualname parts, the section's own name last
    children: list[Section] = field(default_factory=list)


@dataclass
class Doc:
    path: str
    lines: list[str]  # without line ends
    format: TextFormat

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).name or "file"

    def size(self, start: int, end: int) -> tuple[int, int]:
        return end - start, sum(len(line) + 1 for line in self.lines[start:end])

    def fits(self, start: int, end: int) -> bool:
        lines, chars = self.size(start, end)
        return lines <= MAX_LINES and chars <= MAX_CHARS


class NotReadable(Exception):
    """Raised by a reader whose format's own parser refuses the file, at `line`."""

    def __init__(self, line: int = 1) -> None:
        super().__init__(line)
        self.line = line


def parse_sections(source: bytes, *, path: str, text_format: TextFormat) -> ParsedFile:
    """The file's sections in `text_format` as `section` units."""
    result = ParsedFile(language=text_format.name)
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        text = source.decode("utf-8", errors="replace")
        result.decoded_with_replacement = True
    text = text.removeprefix("\ufeff")
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line end
    if not any(line.strip() for line in lines):
        return result
    doc = Doc(path=path, lines=lines, format=text_format)
    try:
        sections = text_format.read(doc)
    except NotReadable as exc:
        result.has_errors = True
        result.error_lines = [max(1, min(exc.line, len(lines)))]
        sections = []
    if not sections:  # nothing the format's reader can name: plain windows
        sections = [Section(name=doc.stem, start=0, path=(doc.stem,))]
    if text_format.titled:
        result.module_summary = _title(sections)
    result.units = _units(doc, sections)
    return result


def _title(sections: list[Section]) -> str:
    for section in sections:
        if section.signature:
            return section.name[:200]
    return ""


def _close(sections: list[Section], end: int) -> list[Section]:
    """Each section runs to the next one's start (the last to `end`); a first section that does
    not start the file gets the lines before it as its own unit, named after the file, unless
    they are blank (then the first section takes them)."""
    for section, following in itertools.pairwise(sections):
        section.end = following.start
    if sections:
        sections[-1].end = end
    return sections


def _units(doc: Doc, top: list[Section]) -> list[ParsedUnit]:
    top = [s for s in _close(top, len(doc.lines)) if s.end > s.start]
    if top and top[0].start > 0:
        if any(line.strip() for line in doc.lines[: top[0].start]):
            top.insert(0, Section(name=doc.stem, start=0, end=top[0].start, path=(doc.stem,)))
        else:
            top[0].start = 0
    units: list[ParsedUnit] = []
    taken: set[str] = set()
    for section in _merge_one_liners(doc, top):
        _emit(doc, section, units, taken)
    return units


def _merge_one_liners(doc: Doc, sections: list[Section]) -> list[Section]:
    """Runs of one-line keys (`version: 2`, `name = "x"`) are one unit, not one unit each."""
    if not doc.format.merge_one_liners:
        return sections
    out: list[Section] = []
    run: list[Section] = []

    def flush() -> None:
        if len(run) > 1:
            names = [s.name for s in run]
            name = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            out.append(
                Section(
                    name=name,
                    start=run[0].start,
                    end=run[-1].end,
                    signature=run[0].signature,
                    path=(name,),
                )
            )
        else:
            out.extend(run)
        run.clear()

    for section in sections:
        filled = [
            line
            for line in doc.lines[section.start : section.end]
            if line.strip() not in ("", "{", "}", "[", "]")
        ]
        if len(filled) == 1 and not section.children and len(run) < MAX_LINES // 2:
            run.append(section)
        else:
            flush()
            out.append(section)
    flush()
    return out


def _emit(doc: Doc, section: Section, units: list[ParsedUnit], taken: set[str]) -> None:
    """The section as one unit when it fits; else its head and its children (each emitted the
    same way), or, without children, sized parts."""
    children = [c for c in _close(section.children, section.end) if c.end > c.start]
    if doc.fits(section.start, section.end) or not children:
        _parts(doc, section, section.start, section.end, units, taken)
        return
    head = [line for line in doc.lines[section.start : children[0].start] if line.strip()]
    if len(head) > 2:
        _parts(doc, section, section.start, children[0].start, units, taken)
    else:  # `jobs:` alone is no unit: it opens its first child's
        children[0].start = section.start
    for child in children:
        _emit(doc, child, units, taken)


def _parts(
    doc: Doc, section: Section, start: int, end: int, units: list[ParsedUnit], taken: set[str]
) -> None:
    qualname = _qualname(doc, section)
    for number, (a, b) in enumerate(_windows(doc, start, end), start=1):
        name = section.name if number == 1 else f"{section.name} ({number})"
        qual = qualname if number == 1 else f"{qualname} ({number})"
        qual = _unique(qual, taken)
        units.append(
            ParsedUnit(
                kind=SECTION,
                name=name[:300],
                qualname=qual,
                start_line=a + 1,
                end_line=b,
                signature=section.signature or doc.lines[a].strip()[:300],
                docstring=section.docstring if number == 1 else "",
                code="\n".join(doc.lines[a:b]),
                parent_qualname=_parent(doc, section),
                defines=(section.name[:300],),
            )
        )


def _qualname(doc: Doc, section: Section) -> str:
    path = section.path or (section.name,)
    return doc.format.separator.join(path)[:1000]


def _parent(doc: Doc, section: Section) -> str:
    return doc.format.separator.join(section.path[:-1])[:1000]


def _unique(qualname: str, taken: set[str]) -> str:
    candidate, n = qualname, 1
    while candidate in taken:
        n += 1
        candidate = f"{qualname} ({n})"
    taken.add(candidate)
    return candidate


def _windows(doc: Doc, start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) in parts that fit, each cut after a blank line where one is near the end."""
    parts = []
    while start < end:
        stop, chars = start, 0
        while stop < end:
            length = len(doc.lines[stop]) + 1
            if stop > start and (stop - start >= MAX_LINES or chars + length > MAX_CHARS):
                break
            chars += length
            stop += 1
        if stop < end:
            half = start + (stop - start) // 2
            blank = next(
                (i + 1 for i in range(stop - 1, half, -1) if not doc.lines[i].strip()), None
            )
            stop = blank or stop
        parts.append((start, stop))
        start = stop
    return parts


def leading_comments(lines: list[str], i: int, markers: tuple[str, ...]) -> int:
    """The first of the comment lines right above line `i` (`i` where there are none): they
    belong to the section that starts at `i`."""
    while i > 0 and lines[i - 1].strip().startswith(markers):
        i -= 1
    return i


def packed(doc: Doc, starts: list[tuple[int, str, str]]) -> list[Section]:
    """Blocks that start at `starts`, packed together while they fit in one unit; each unit is
    named after its first block."""
    if not starts:
        return []
    starts[0] = (0, *starts[0][1:])  # a doctype, an @charset: with the first block
    bounds = [s for s, _, _ in starts] + [len(doc.lines)]
    sections: list[Section] = []
    for n, (start, name, signature) in enumerate(starts):
        end = bounds[n + 1]
        if sections and doc.fits(sections[-1].start, end):
            continue
        sections.append(
            Section(name=name, start=start, signature=signature.strip()[:300], path=(name,))
        )
    return sections
