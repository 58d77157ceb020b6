"""YAML, TOML, JSON and INI: a section per top-level key or `[table]`; a key too large for one
unit is cut again at its own keys (`jobs`, then `jobs.test`, then `jobs.test.steps`). A file
the format's own parser refuses (YAML, TOML, JSON) is not cut at its keys."""

from __future__ import annotations

import json
import re
import tomllib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from indexing.text_formats.sections import Doc, NotReadable, Section, TextFormat, leading_comments

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


def _read_yaml(doc: Doc) -> list[Section]:
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
    rows = [e.line for e in entries]
    sections = []
    for n, entry in enumerate(top):
        following = top[n + 1].line if n + 1 < len(top) else len(doc.lines)
        if entry.item or not entry.key:
            name = _yaml_item_name(doc.lines[entry.line : following], n)
        else:
            name = entry.key
        section = Section(
            name=name, start=entry.line, signature=doc.lines[entry.line].rstrip(), path=(name,)
        )
        inner = _between(entries, rows, entry.line, following)
        if entry.item and entry.key:  # `- name: x` then `  hosts: y`: the item's own keys
            inner = [e for e in inner if not (e.indent == 0 and e.item)]
        _yaml_children(doc, section, inner)
        sections.append(section)
    return sections


def _check_yaml(doc: Doc) -> None:
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
        raise NotReadable(mark.line + 1 if mark is not None else 1) from exc


def _yaml_item_name(lines: list[str], n: int) -> str:
    if lines and lines[0].strip() in ("---", "..."):
        return f"document {n + 1}"
    for line in lines:
        match = re.match(r"^[-\s]*name:\s*(.+)$", line)
        if match:
            return match.group(1).strip().strip("\"'")[:100]
    return f"[{n}]"


def _yaml_children(doc: Doc, parent: Section, entries: list[_Key]) -> None:
    """The keys one level below `parent` (or its list items, `steps[0]`, `steps[1]`...)."""
    if not entries:
        return
    indent = min(e.indent for e in entries)
    level = [e for e in entries if e.indent == indent and (e.key or e.item)]
    rows = [e.line for e in entries]
    items = 0
    for n, entry in enumerate(level):
        following = level[n + 1].line if n + 1 < len(level) else 10**9
        if entry.item:
            path = (*parent.path[:-1], f"{parent.path[-1]}[{items}]")
            items += 1
        else:
            path = (*parent.path, entry.key)
        child = Section(
            name=".".join(path),
            start=entry.line,
            signature=doc.lines[entry.line].strip(),
            path=path,
        )
        inner = _between(entries, rows, entry.line, following)
        if entry.item and entry.key:
            inner = [e for e in inner if not (e.indent == indent and e.item)]
        _yaml_children(doc, child, inner)
        parent.children.append(child)


def _between(entries: list[_Key], rows: list[int], after: int, before: int) -> list[_Key]:
    """The entries on lines strictly between two (`entries` in line order, `rows` their
    lines): a slice, where filtering the whole list at every key made a file of thousands of
    keys (a translation file) quadratic."""
    return entries[bisect_right(rows, after) : bisect_left(rows, before)]


_TOML_TABLE = re.compile(r"""^\s*\[\[?\s*([A-Za-z0-9_\-."' ]+?)\s*\]\]?\s*(#.*)?$""")


def _read_toml(doc: Doc) -> list[Section]:
    try:
        tomllib.loads("\n".join(doc.lines))
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise NotReadable(int(line.group(1)) if line else 1) from exc
    return _tables(doc, _TOML_TABLE, _TOML_KEY)


_INI_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*([;#].*)?$")
_INI_KEY = re.compile(r"^([A-Za-z0-9_.\-/@$ ]+?)\s*[=:]")
_TOML_KEY = re.compile(r"""^([A-Za-z0-9_\-."']+?)\s*=""")


def _read_ini(doc: Doc) -> list[Section]:
    sections = _tables(doc, _INI_SECTION, _INI_KEY)
    if not any(s.signature.startswith("[") for s in sections):
        # .properties, .env.example: no tables, so blocks of keys between blank lines.
        return _key_blocks(doc, sections)
    return sections


def _tables(doc: Doc, header: re.Pattern[str], key_pattern: re.Pattern[str]) -> list[Section]:
    """A section per `[table]` header; keys before the first header are sections of their own
    (one-liners merge later); comment lines just above a header belong to it."""
    sections: list[Section] = []
    in_table = False
    for i, line in enumerate(doc.lines):
        match = header.match(line)
        if match is not None:
            name = match.group(1).strip().replace('"', "").replace("'", "")
            start = leading_comments(doc.lines, i, ("#", ";"))
            sections.append(Section(name=name, start=start, signature=line.strip(), path=(name,)))
            in_table = True
        elif not in_table and not line[:1].isspace():
            key = key_pattern.match(line)
            if key is not None:
                name = key.group(1).strip().strip("\"'")
                start = leading_comments(doc.lines, i, ("#", ";", "!"))
                sections.append(
                    Section(name=name, start=start, signature=line.strip(), path=(name,))
                )
    return sections


def _key_blocks(doc: Doc, keys: list[Section]) -> list[Section]:
    blocks: list[Section] = []
    for key in keys:
        previous = doc.lines[key.start - 1] if key.start else ""
        if not blocks or not previous.strip():
            blocks.append(key)
    return blocks


def _read_json(doc: Doc) -> list[Section]:
    text = "\n".join(doc.lines)
    try:
        json.loads(text)
    except RecursionError:
        return []  # valid, but nested deeper than Python's decoder goes: plain windows
    except ValueError as exc:
        # JSON with comments and trailing commas (tsconfig.json, VS Code settings) is read too.
        try:
            json.loads(_TRAILING_COMMA.sub(r"\1", _strip_json_comments(text)))
        except ValueError:
            raise NotReadable(getattr(exc, "lineno", 1)) from exc
    keys = _json_keys(text)
    if not keys:
        return []  # a top-level array or scalar: plain windows, not an error
    roots: list[Section] = []
    stack: list[Section] = []
    for line, depth, key in keys:
        while len(stack) >= depth:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (*parent.path, key) if parent else (key,)
        section = Section(
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


FORMATS = (
    TextFormat("yaml", _read_yaml, suffixes=".yml .yaml", merge_one_liners=True),
    TextFormat("toml", _read_toml, suffixes=".toml", merge_one_liners=True),
    TextFormat("json", _read_json, suffixes=".json", merge_one_liners=True),
    TextFormat(
        "ini",
        _read_ini,
        suffixes=".ini .cfg .conf .properties",
        names=(".env.example", ".env.sample", ".env.template", ".editorconfig"),
        merge_one_liners=True,
    ),
)
