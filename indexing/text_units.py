"""Documentation and configuration files -> `section` units: what developers search besides code.

Markdown and reStructuredText are cut at their headings; YAML, TOML, JSON and INI files at their
top-level keys or tables (a key too large for one unit is cut again at its own keys: `jobs`,
then `jobs.test`, then `jobs.test.steps`); a Dockerfile at its stages (FROM); a Makefile at its
targets; SQL at its statements; HTML, templates and stylesheets into sized blocks that start at a
template block, a landmark element or a rule. Small line-based parsers, on purpose: they never
fail on a half-written file, and every line of the file lands in exactly one unit.

Every unit is sized (at most `MAX_LINES` lines and about `MAX_CHARS` characters): a longer
section is cut into parts named `Name (2)`, `Name (3)`... A file its format's own reader refuses
(JSON, TOML) or in which the line parser finds nothing is cut into plain windows instead, and
flagged (`has_errors`), which the run reports as a warning.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from indexing.units import SECTION, ParsedFile, ParsedUnit

MAX_LINES = 60
MAX_CHARS = 3000

# Lock files are data a tool wrote, never read by people (`indexing.file_selection` skips them).
_LOCK_FILES = """
    package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lock bun.lockb deno.lock
    Cargo.lock poetry.lock Pipfile.lock pdm.lock uv.lock Gemfile.lock composer.lock go.sum
    go.work.sum mix.lock flake.lock Podfile.lock Package.resolved pubspec.lock packages.lock.json
    gradle.lockfile conda-lock.yml Chart.lock .terraform.lock.hcl
"""
LOCK_FILE_NAMES = frozenset(_LOCK_FILES.split())
_FORMAT_SUFFIXES = {
    "markdown": ".md .markdown .mdx",
    "rst": ".rst",
    "yaml": ".yml .yaml",
    "toml": ".toml",
    "json": ".json",
    "ini": ".ini .cfg .conf .properties",
    "dockerfile": ".dockerfile",
    "makefile": ".mk",
    "sql": ".sql",
    # Templates are HTML with a template language's blocks; .vue and .svelte are code.
    "html": ".html .htm .jinja .jinja2 .j2 .hbs .handlebars .mustache .ejs .erb .liquid .njk",
    "css": ".css .scss .sass .less",
}
_SUFFIXES = {
    suffix: fmt for fmt, suffixes in _FORMAT_SUFFIXES.items() for suffix in suffixes.split()
}
_NAMES = {
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "makefile": "makefile",
    "gnumakefile": "makefile",
    ".env.example": "ini",
    ".env.sample": "ini",
    ".env.template": "ini",
    ".editorconfig": "ini",
}
TEXT_FORMATS = tuple(_FORMAT_SUFFIXES)


def text_format_for_path(path: str) -> str | None:
    """The format this module reads a file in (`markdown`, `yaml`, `dockerfile`...), by its name,
    or None: lock files and anything else are not read here."""
    name = PurePosixPath(path).name
    if not name or name in LOCK_FILE_NAMES:
        return None
    lowered = name.lower()
    if lowered in _NAMES:
        return _NAMES[lowered]
    # Dockerfile.dev, Containerfile.prod, Makefile.am (automake is make syntax).
    for stem in ("dockerfile", "containerfile", "makefile"):
        if lowered.startswith(stem + "."):
            return "dockerfile" if stem != "makefile" else "makefile"
    if lowered.endswith(".html.j2") or lowered.endswith(".html.erb"):
        return "html"
    return _SUFFIXES.get(PurePosixPath(lowered).suffix)


# ---------------------------------------------------------------------------------------------
# The shared machinery: a tree of sections over line ranges, cut into sized units.


@dataclass
class _Section:
    name: str
    start: int  # 0-based line index, inclusive
    end: int = -1  # 0-based, exclusive; set when the next section starts
    signature: str = ""
    docstring: str = ""
    path: tuple[str, ...] = ()  # qualname parts, the section's own name last
    children: list[_Section] = field(default_factory=list)


@dataclass
class _Doc:
    path: str
    lines: list[str]  # without line ends
    fmt: str

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).name or "file"

    def size(self, start: int, end: int) -> tuple[int, int]:
        return end - start, sum(len(line) + 1 for line in self.lines[start:end])

    def fits(self, start: int, end: int) -> bool:
        lines, chars = self.size(start, end)
        return lines <= MAX_LINES and chars <= MAX_CHARS


class _NotReadable(Exception):
    def __init__(self, line: int = 1) -> None:
        super().__init__(line)
        self.line = line


def parse_text_file(source: bytes, *, path: str) -> ParsedFile | None:
    """The file's sections as `section` units, or None when `path` is no format read here."""
    fmt = text_format_for_path(path)
    if fmt is None:
        return None
    result = ParsedFile(language=fmt)
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
    doc = _Doc(path=path, lines=lines, fmt=fmt)
    try:
        sections = _READERS[fmt](doc)
    except _NotReadable as exc:
        result.has_errors = True
        result.error_lines = [max(1, min(exc.line, len(lines)))]
        sections = []
    if not sections:  # nothing the format's reader can name: plain windows
        sections = [_Section(name=doc.stem, start=0, path=(doc.stem,))]
    if fmt in ("markdown", "rst"):
        result.module_summary = _title(sections)
    result.units = _units(doc, sections)
    return result


def _title(sections: list[_Section]) -> str:
    for section in sections:
        if section.signature:
            return section.name[:200]
    return ""


def _close(sections: list[_Section], end: int) -> list[_Section]:
    """Each section runs to the next one's start (the last to `end`); a first section that does
    not start the file gets the lines before it as its own unit, named after the file, unless
    they are blank (then the first section takes them)."""
    for section, following in itertools.pairwise(sections):
        section.end = following.start
    if sections:
        sections[-1].end = end
    return sections


def _units(doc: _Doc, top: list[_Section]) -> list[ParsedUnit]:
    top = [s for s in _close(top, len(doc.lines)) if s.end > s.start]
    if top and top[0].start > 0:
        if any(line.strip() for line in doc.lines[: top[0].start]):
            top.insert(0, _Section(name=doc.stem, start=0, end=top[0].start, path=(doc.stem,)))
        else:
            top[0].start = 0
    units: list[ParsedUnit] = []
    taken: set[str] = set()
    for section in _merge_one_liners(doc, top):
        _emit(doc, section, units, taken)
    return units


def _merge_one_liners(doc: _Doc, sections: list[_Section]) -> list[_Section]:
    """Runs of one-line keys (`version: 2`, `name = "x"`) are one unit, not one unit each."""
    if doc.fmt not in ("yaml", "toml", "json", "ini"):
        return sections
    out: list[_Section] = []
    run: list[_Section] = []

    def flush() -> None:
        if len(run) > 1:
            names = [s.name for s in run]
            name = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            out.append(
                _Section(
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


def _emit(doc: _Doc, section: _Section, units: list[ParsedUnit], taken: set[str]) -> None:
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
    doc: _Doc, section: _Section, start: int, end: int, units: list[ParsedUnit], taken: set[str]
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


def _qualname(doc: _Doc, section: _Section) -> str:
    path = section.path or (section.name,)
    separator = " > " if doc.fmt in ("markdown", "rst") else "."
    return separator.join(path)[:1000]


def _parent(doc: _Doc, section: _Section) -> str:
    separator = " > " if doc.fmt in ("markdown", "rst") else "."
    return separator.join(section.path[:-1])[:1000]


def _unique(qualname: str, taken: set[str]) -> str:
    candidate, n = qualname, 1
    while candidate in taken:
        n += 1
        candidate = f"{qualname} ({n})"
    taken.add(candidate)
    return candidate


def _windows(doc: _Doc, start: int, end: int) -> list[tuple[int, int]]:
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


def _first_paragraph(lines: list[str]) -> str:
    """The first paragraph of prose in `lines`: no code fences, directives, tables or lists'
    markup beyond the words."""
    paragraph: list[str] = []
    fence = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            if paragraph:
                break
            fence = not fence
            continue
        if fence:
            continue
        if not stripped:
            if paragraph:
                break
            continue
        if stripped.startswith(("<!--", "..", "|", "![", "[![", "<img", "<p align", ":")):
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    text = " ".join(paragraph)
    return text[:1000]


# ---------------------------------------------------------------------------------------------
# Markdown and reStructuredText: a tree of headings.

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _read_markdown(doc: _Doc) -> list[_Section]:
    lines = doc.lines
    headings: list[tuple[int, int, str, int]] = []  # (line, level, title, first body line)
    fence = ""
    i = 0
    if lines and lines[0].strip() == "---":  # front matter
        close = next((j for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), None)
        if close is not None:
            i = close + 1
    while i < len(lines):
        line = lines[i]
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif (match := _ATX.match(line)) is not None:
            headings.append((i, len(match.group(1)), (match.group(2) or "").strip(), i + 1))
        elif (
            i + 1 < len(lines)
            and _SETEXT.match(lines[i + 1])
            and line.strip()
            and not line.startswith(("    ", "\t"))
            and not re.match(r"^ {0,3}([-*+]|\d+[.)])\s|^ {0,3}(>|\||<)", line)
            and (i == 0 or not lines[i - 1].strip() or _ATX.match(lines[i - 1]))
        ):
            level = 1 if lines[i + 1].strip().startswith("=") else 2
            headings.append((i, level, line.strip(), i + 2))
            i += 1
        i += 1
    return _heading_tree(doc, headings)


_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")


def _read_rst(doc: _Doc) -> list[_Section]:
    lines = doc.lines
    styles: list[tuple[str, bool]] = []
    headings: list[tuple[int, int, str, int]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        over = _RST_ADORNMENT.match(line)
        if (
            over
            and i + 2 < len(lines)
            and lines[i + 1].strip()
            and _RST_ADORNMENT.match(lines[i + 2])
            and lines[i + 2].strip() == line.strip()
        ):
            style = (line.strip()[0], True)
            title, start, body = lines[i + 1].strip(), i, i + 3
        elif (
            line.strip()
            and not line[0].isspace()
            and not _RST_ADORNMENT.match(line)
            and i + 1 < len(lines)
            and (under := _RST_ADORNMENT.match(lines[i + 1])) is not None
            and len(lines[i + 1].rstrip()) >= min(len(line.rstrip()), 4)
            and (i == 0 or not lines[i - 1].strip() or _RST_ADORNMENT.match(lines[i - 1]))
        ):
            style = (under.group(1), False)
            title, start, body = line.strip(), i, i + 2
        else:
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        headings.append((start, styles.index(style) + 1, title, body))
        i = body
    return _heading_tree(doc, headings)


def _heading_tree(doc: _Doc, headings: list[tuple[int, int, str, int]]) -> list[_Section]:
    """Each heading is a unit of its own text (to the next heading of any level); its qualname
    is its path of headings (`Usage > Install from source`)."""
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    # A document's one title (`# RepoRift` above everything) is no part of its sections' paths.
    title_level = 0
    if headings and all(h[1] > headings[0][1] for h in headings[1:]):
        title_level = headings[0][1]
    for n, (line, level, title, body) in enumerate(headings):
        title = title or f"(untitled {n + 1})"
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        following = headings[n + 1][0] if n + 1 < len(headings) else len(doc.lines)
        sections.append(
            _Section(
                name=title,
                start=line,
                signature=doc.lines[line].strip() if body == line + 1 else title,
                docstring=_first_paragraph(doc.lines[body:following]),
                path=tuple(t for lv, t in stack if lv != title_level or len(stack) == 1),
            )
        )
    return sections


# ---------------------------------------------------------------------------------------------
# YAML, TOML, INI, JSON: keys and tables.

_YAML_KEY = re.compile(
    r"^(?P<indent>[ ]*)(?P<dash>-[ ]+)?"
    r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s#\-?:,\[\]{}&*!|>'\"%@`][^#]*?)[ ]*:(?:[ ]|$)"
)
_YAML_ITEM = re.compile(r"^(?P<indent>[ ]*)-(?:[ ]|$)")
_BLOCK_SCALAR = re.compile(r":[ ]*[|>][-+0-9]*[ ]*(#.*)?$")


@dataclass(frozen=True)
class _Key:
    line: int
    indent: int
    key: str  # "" for a list item that does not start with a key
    item: bool  # the line starts a list item (`- name: x`)


def _read_yaml(doc: _Doc) -> list[_Section]:
    """Keys at column 0 (or top-level list items, or documents), each cut again at its own keys
    when it is too large; a block scalar's lines (`run: |`) are never taken for keys."""
    _check_yaml(doc)
    entries: list[_Key] = []
    block_indent: int | None = None
    for i, line in enumerate(doc.lines):
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if indent > block_indent:
                continue
            block_indent = None
        if stripped.startswith("#"):
            continue
        match = _YAML_KEY.match(line)
        if match is not None:
            key = match.group("key").strip().strip("\"'")
            entries.append(_Key(i, len(match.group("indent")), key, bool(match.group("dash"))))
            if _BLOCK_SCALAR.search(line):
                block_indent = indent + (len(match.group("dash") or ""))
        elif (item := _YAML_ITEM.match(line)) is not None:
            entries.append(_Key(i, len(item.group("indent")), "", True))
        elif indent == 0 and stripped in ("---", "..."):
            entries.append(_Key(i, 0, "", False))
    top = [e for e in entries if e.indent == 0]
    sections = []
    for n, entry in enumerate(top):
        following = top[n + 1].line if n + 1 < len(top) else len(doc.lines)
        if entry.item or not entry.key:
            name = _yaml_item_name(doc.lines[entry.line : following], n)
        else:
            name = entry.key
        section = _Section(
            name=name, start=entry.line, signature=doc.lines[entry.line].rstrip(), path=(name,)
        )
        inner = [e for e in entries if entry.line < e.line < following]
        if entry.item and entry.key:  # `- name: x` then `  hosts: y`: the item's own keys
            inner = [e for e in inner if not (e.indent == 0 and e.item)]
        _yaml_children(doc, section, inner)
        sections.append(section)
    return sections


def _check_yaml(doc: _Doc) -> None:
    """A file PyYAML refuses is not cut at its keys. Templated YAML (`{{ }}`, a Helm chart's)
    is not YAML until rendered, and its lines still read well: it is not checked."""
    text = "\n".join(doc.lines)
    if "{{" in text or "{%" in text:
        return
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for _ in yaml.load_all(text, Loader=loader):
            pass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _NotReadable(mark.line + 1 if mark is not None else 1) from exc


def _yaml_item_name(lines: list[str], n: int) -> str:
    if lines and lines[0].strip() in ("---", "..."):
        return f"document {n + 1}"
    for line in lines:
        match = re.match(r"^[-\s]*name:\s*(.+)$", line)
        if match:
            return match.group(1).strip().strip("\"'")[:100]
    return f"[{n}]"


def _yaml_children(doc: _Doc, parent: _Section, entries: list[_Key]) -> None:
    """The keys one level below `parent` (or its list items, `steps[0]`, `steps[1]`...)."""
    if not entries:
        return
    indent = min(e.indent for e in entries)
    level = [e for e in entries if e.indent == indent and (e.key or e.item)]
    items = 0
    for n, entry in enumerate(level):
        following = level[n + 1].line if n + 1 < len(level) else 10**9
        if entry.item:
            path = (*parent.path[:-1], f"{parent.path[-1]}[{items}]")
            items += 1
        else:
            path = (*parent.path, entry.key)
        child = _Section(
            name=".".join(path),
            start=entry.line,
            signature=doc.lines[entry.line].strip(),
            path=path,
        )
        inner = [e for e in entries if entry.line < e.line < following]
        if entry.item and entry.key:
            inner = [e for e in inner if not (e.indent == indent and e.item)]
        _yaml_children(doc, child, inner)
        parent.children.append(child)


_TOML_TABLE = re.compile(r"""^\s*\[\[?\s*([A-Za-z0-9_\-."' ]+?)\s*\]\]?\s*(#.*)?$""")


def _read_toml(doc: _Doc) -> list[_Section]:
    try:
        tomllib.loads("\n".join(doc.lines))
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise _NotReadable(int(line.group(1)) if line else 1) from exc
    return _tables(doc, _TOML_TABLE, keys_before=True)


_INI_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*([;#].*)?$")
_INI_KEY = re.compile(r"^([A-Za-z0-9_.\-/@$ ]+?)\s*[=:]")
_TOML_KEY = re.compile(r"""^([A-Za-z0-9_\-."']+?)\s*=""")


def _read_ini(doc: _Doc) -> list[_Section]:
    return _tables(doc, _INI_SECTION, keys_before=True)


def _tables(doc: _Doc, header: re.Pattern[str], *, keys_before: bool) -> list[_Section]:
    """A section per `[table]` header; keys before the first header are sections of their own
    (one-liners merge later); comment lines just above a header belong to it."""
    key_pattern = _TOML_KEY if doc.fmt == "toml" else _INI_KEY
    sections: list[_Section] = []
    in_table = False
    for i, line in enumerate(doc.lines):
        match = header.match(line)
        if match is not None:
            name = match.group(1).strip().replace('"', "").replace("'", "")
            start = _leading_comments(doc.lines, i, ("#", ";"))
            sections.append(_Section(name=name, start=start, signature=line.strip(), path=(name,)))
            in_table = True
        elif keys_before and not in_table and not line[:1].isspace():
            key = key_pattern.match(line)
            if key is not None:
                name = key.group(1).strip().strip("\"'")
                start = _leading_comments(doc.lines, i, ("#", ";", "!"))
                sections.append(
                    _Section(name=name, start=start, signature=line.strip(), path=(name,))
                )
    if doc.fmt == "ini" and not any(s.signature.startswith("[") for s in sections):
        # .properties, .env.example: no tables, so blocks of keys between blank lines.
        return _key_blocks(doc, sections)
    return sections


def _key_blocks(doc: _Doc, keys: list[_Section]) -> list[_Section]:
    blocks: list[_Section] = []
    for key in keys:
        previous = doc.lines[key.start - 1] if key.start else ""
        if not blocks or not previous.strip():
            blocks.append(key)
    return blocks


def _leading_comments(lines: list[str], i: int, markers: tuple[str, ...]) -> int:
    while i > 0 and lines[i - 1].strip().startswith(markers):
        i -= 1
    return i


def _read_json(doc: _Doc) -> list[_Section]:
    text = "\n".join(doc.lines)
    try:
        json.loads(text)
    except ValueError as exc:
        # JSON with comments and trailing commas (tsconfig.json, VS Code settings) is read too.
        try:
            json.loads(_TRAILING_COMMA.sub(r"\1", _strip_json_comments(text)))
        except ValueError:
            raise _NotReadable(getattr(exc, "lineno", 1)) from exc
    keys = _json_keys(text)
    if not keys:
        return []  # a top-level array or scalar: plain windows, not an error
    roots: list[_Section] = []
    stack: list[_Section] = []
    for line, depth, key in keys:
        while len(stack) >= depth:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (*parent.path, key) if parent else (key,)
        section = _Section(
            name=".".join(path), start=line, signature=doc.lines[line].strip(), path=path
        )
        if parent is None:
            if not roots:
                section.start = 0  # the opening brace goes with the first key
            roots.append(section)
        elif depth == len(stack) + 1:
            parent.children.append(section)
        stack.append(section)
    return roots


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _strip_json_comments(text: str) -> str:
    out, i, in_string = [], 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1 : i + 2])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            out.append("\n" * text.count("\n", i, close if close >= 0 else len(text)))
            i = close + 2 if close >= 0 else len(text)
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _json_keys(text: str, max_depth: int = 3) -> list[tuple[int, int, str]]:
    """(line, depth, key) of each object key down to `max_depth`, where every enclosing value
    is an object (keys inside arrays are left to their enclosing key)."""
    keys: list[tuple[int, int, str]] = []
    stack: list[str] = []  # the open brackets
    line, i, n = 0, 0, len(text)
    pending: tuple[int, str] | None = None  # a string just read at an object's key position
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            pending = (line, text[i + 1 : j])
            line += text.count("\n", i, j)
            i = j
        elif c == ":" and pending is not None:
            depth = len(stack)
            if 1 <= depth <= max_depth and all(b == "{" for b in stack):
                keys.append((pending[0], depth, pending[1]))
            pending = None
        elif c in "{[":
            stack.append(c)
            pending = None
        elif c in "}]":
            if stack:
                stack.pop()
            pending = None
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = (j if j >= 0 else n) - 1
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = j if j >= 0 else n
            line += text.count("\n", i, j)
            i = j + 1
        elif not c.isspace():
            pending = None if c != "," else pending
        i += 1
    return keys


# ---------------------------------------------------------------------------------------------
# Dockerfile, Makefile, SQL.

_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", re.I)


def _read_dockerfile(doc: _Doc) -> list[_Section]:
    sections = []
    for i, line in enumerate(doc.lines):
        match = _FROM.match(line)
        if match is not None:
            name = match.group(2) or match.group(1)
            start = _leading_comments(doc.lines, i, ("#",))
            sections.append(_Section(name=name, start=start, signature=line.strip(), path=(name,)))
    return sections


_MAKE_TARGET = re.compile(r"^([^\s:#=][^:#=]*?)\s*(::?)(?!=)")
_MAKE_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z0-9_.\-]+)\s*(?:[:+?!]?=|::=)")
_MAKE_DIRECTIVE = re.compile(
    r"^(-?include|sinclude|ifn?eq|ifn?def|else|endif|define|endef|export|unexport|vpath)\b"
)
_MAKE_SPECIAL = re.compile(r"^\.[A-Z_]+$")  # .PHONY, .SUFFIXES: not targets anyone asks about


def _read_makefile(doc: _Doc) -> list[_Section]:
    """A target (with the comment lines above it) and its recipe; a run of variables that
    follows a blank line after a recipe is a section named after its first variable."""
    sections: list[_Section] = []
    previous_blank = True
    in_recipe = in_define = False
    for i, line in enumerate(doc.lines):
        if in_define:
            in_define = not line.strip().startswith("endef")
            continue
        if line.startswith("define") or re.match(r"^\w+\s*[:+?]?=\s*define\b", line):
            in_define = True
        if not line.strip():
            previous_blank = True
            continue
        if line.startswith("\t") or (in_recipe and line[:1].isspace()):
            previous_blank = False
            continue
        target = _MAKE_TARGET.match(line)
        assign = _MAKE_ASSIGN.match(line)
        if target is not None and assign is None and not _MAKE_DIRECTIVE.match(line):
            names = target.group(1).split()
            if names and not all(_MAKE_SPECIAL.match(n) for n in names):
                start = _leading_comments(doc.lines, i, ("#",))
                sections.append(
                    _Section(name=names[0], start=start, signature=line.strip(), path=(names[0],))
                )
            in_recipe = True
        elif assign is not None and (in_recipe or not sections) and previous_blank:
            start = _leading_comments(doc.lines, i, ("#",))
            name = assign.group(1)
            sections.append(_Section(name=name, start=start, signature=line.strip(), path=(name,)))
            in_recipe = False
        elif not line.startswith("#"):
            in_recipe = in_recipe and not previous_blank
        previous_blank = False
    return sections


_SQL_START = re.compile(
    r"^\s*(CREATE|ALTER|DROP|INSERT|UPDATE|DELETE|SELECT|WITH|GRANT|REVOKE|COMMENT|TRUNCATE|"
    r"BEGIN|COMMIT|SET|DO|COPY|REPLACE|MERGE|DECLARE|USE|EXPLAIN|VACUUM|ANALYZE|CALL|EXEC|PRAGMA)\b",
    re.I,
)
_SQL_OBJECT = re.compile(
    r"^\s*(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+|UNIQUE\s+|MATERIALIZED\s+"
    r"|RECURSIVE\s+|GLOBAL\s+|LOCAL\s+|UNLOGGED\s+)*(TABLE|VIEW|INDEX|FUNCTION|PROCEDURE|TRIGGER|"
    r"TYPE|SEQUENCE|SCHEMA|EXTENSION|DOMAIN|POLICY|DATABASE|ROLE|AGGREGATE|RULE)\s+"
    r"(?:CONCURRENTLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([`\"\[]?[\w.$\"`\]\[]+)",
    re.I,
)
_SQL_TARGET = re.compile(
    r"^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY|TRUNCATE(?:\s+TABLE)?)\s+([`\"\[]?[\w.$\"`\]\[]+)",
    re.I,
)


_QUOTES = '`"[]'


def _read_sql(doc: _Doc) -> list[_Section]:
    """A statement from its first keyword (and the comments above) to the line where a `;`
    ends it outside strings, comments and `$$` bodies. DDL statements are units of their own;
    runs of the same kind of data statement (`INSERT INTO users` ...) share one."""
    sections: list[_Section] = []
    i, lines = 0, doc.lines
    while i < len(lines):
        if not _SQL_START.match(lines[i]):
            i += 1
            continue
        start = _leading_comments(lines, i, ("--",))
        end = _sql_statement_end(lines, i)
        statement = lines[i]
        obj = _SQL_OBJECT.match(statement)
        target = _SQL_TARGET.match(statement)
        if obj is not None:
            name = obj.group(2).strip(_QUOTES)
            signature = " ".join(statement.split())[:300]
            sections.append(_Section(name=name, start=start, signature=signature, path=(name,)))
        else:
            verb = (target.group(1) if target else statement.split()[0]).upper()
            verb = " ".join(verb.split())
            name = f"{verb} {target.group(2).strip(_QUOTES)}" if target else verb
            last = sections[-1] if sections else None
            if last is not None and last.name == name and doc.fits(last.start, end):
                i = end
                continue  # the same kind of statement as the one before: one unit
            signature = " ".join(statement.split())[:300]
            sections.append(_Section(name=name, start=start, signature=signature, path=(name,)))
        i = end
    return sections


def _sql_statement_end(lines: list[str], i: int) -> int:
    dollar = ""
    quote = ""
    for j in range(i, len(lines)):
        line = lines[j]
        k = 0
        while k < len(line):
            c = line[k]
            if dollar:
                if line.startswith(dollar, k):
                    k += len(dollar)
                    dollar = ""
                    continue
            elif quote:
                if c == quote:
                    quote = ""
            elif c in "'\"":
                quote = c
            elif line.startswith("--", k):
                break
            elif c == "$" and (m := re.match(r"\$[A-Za-z_]*\$", line[k:])):
                dollar = m.group(0)
                k += len(dollar)
                continue
            elif c == ";":
                return j + 1
            k += 1
        if j + 1 < len(lines) and not dollar and not quote and not lines[j + 1].strip():
            # A blank line after a statement with no `;` (a psql script, a broken file) ends it
            # when the next non-blank line begins another statement.
            following = next((x for x in lines[j + 1 :] if x.strip()), "")
            if _SQL_START.match(following) and not re.match(
                r"^\s*(SELECT|WITH)\b", following, re.I
            ):
                return j + 1
    return len(lines)


# ---------------------------------------------------------------------------------------------
# HTML, templates and stylesheets: sized blocks.

_TEMPLATE_BLOCK = re.compile(
    r"\{%-?\s*(block|macro|call|component|section)\s+([\w.\-'\"]+)"
    r"|\{\{#\*?inline\s+[\"']([\w\-./]+)"
    r"|<%\s*content_for\s*:?\(?\s*:?([\w\-]+)"
)
_HTML_LANDMARK = re.compile(
    r"^\s*<(head|body|header|footer|nav|main|section|article|aside|form|table|script|style|"
    r"template|dialog|h[1-6]|div(?=[^>]*\bid=))\b([^>]*)>?(.*)$",
    re.I,
)


def _read_html(doc: _Doc) -> list[_Section]:
    starts: list[tuple[int, str, str]] = []
    for i, line in enumerate(doc.lines):
        block = _TEMPLATE_BLOCK.search(line)
        if block is not None:
            name = next(g for g in block.groups()[1:] if g).strip("'\"")
            starts.append((i, name, line))
            continue
        landmark = _HTML_LANDMARK.match(line)
        if landmark is not None:
            tag, attributes, rest = landmark.groups()
            tag = tag.lower()
            id_ = re.search(r"\bid=[\"']?([\w\-:.]+)", attributes or "")
            if tag[0] == "h" and tag[1:].isdigit():
                text = re.sub(r"<[^>]+>|\{\{.*?\}\}|\{%.*?%\}", "", rest).strip()
                name = text[:80] or tag
            else:
                name = f"{tag}#{id_.group(1)}" if id_ else tag
            starts.append((i, name, line))
    return _packed(doc, starts)


def _read_css(doc: _Doc) -> list[_Section]:
    """A rule (selector group or at-rule) at brace depth 0, with the comments above it."""
    starts: list[tuple[int, str, str]] = []
    depth = 0
    in_comment = False
    fresh = True  # the next line at depth 0 begins a rule
    for i, line in enumerate(doc.lines):
        text = line
        if in_comment:
            close = text.find("*/")
            if close < 0:
                continue
            text, in_comment = text[close + 2 :], False
        stripped = text.strip()
        is_comment = stripped.startswith(("/*", "//", "*"))
        if depth == 0 and fresh and stripped and not is_comment and not stripped.startswith("}"):
            head = stripped.split("{")[0].strip().rstrip(",") or stripped
            start = _leading_comments(doc.lines, i, ("/*", "*", "//"))
            if not starts or starts[-1][0] < start:
                starts.append((start, head[:120], stripped))
            fresh = False
        # Depth, ignoring strings and comments roughly: enough to find top-level rules.
        cleaned = re.sub(r"\"[^\"]*\"|'[^']*'|/\*.*?\*/", "", text)
        if "/*" in cleaned:
            cleaned, in_comment = cleaned.split("/*", 1)[0], True
        if "//" in cleaned and "url(" not in cleaned:
            cleaned = cleaned.split("//", 1)[0]
        depth = max(0, depth + cleaned.count("{") - cleaned.count("}"))
        if depth == 0 and cleaned.rstrip().endswith(("}", ";")):
            fresh = True
    return _packed(doc, starts)


def _packed(doc: _Doc, starts: list[tuple[int, str, str]]) -> list[_Section]:
    """Blocks that start at `starts`, packed together while they fit in one unit; each unit is
    named after its first block."""
    if not starts:
        return []
    starts[0] = (0, *starts[0][1:])  # a doctype, an @charset: with the first block
    bounds = [s for s, _, _ in starts] + [len(doc.lines)]
    sections: list[_Section] = []
    for n, (start, name, signature) in enumerate(starts):
        end = bounds[n + 1]
        if sections and doc.fits(sections[-1].start, end):
            continue
        sections.append(
            _Section(name=name, start=start, signature=signature.strip()[:300], path=(name,))
        )
    return sections


_READERS: dict[str, Callable[[_Doc], list[_Section]]] = {
    "markdown": _read_markdown,
    "rst": _read_rst,
    "yaml": _read_yaml,
    "toml": _read_toml,
    "json": _read_json,
    "ini": _read_ini,
    "dockerfile": _read_dockerfile,
    "makefile": _read_makefile,
    "sql": _read_sql,
    "html": _read_html,
    "css": _read_css,
}
