"""Markdown, reStructuredText and AsciiDoc: a section per heading, its qualname the path of
headings above it (`Usage > Install from source`), its docstring the first paragraph under it."""

from __future__ import annotations

import re

from indexing.text_formats.sections import Doc, Section, TextFormat

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _read_markdown(doc: Doc) -> list[Section]:
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


def _read_rst(doc: Doc) -> list[Section]:
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


_ADOC_TITLE = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
_ADOC_UNDERLINE = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
# Delimited blocks (listing, literal, example, sidebar, quote, passthrough, comment): their lines
# are the block's content, never headings. A Markdown-style fence (three backticks, a language
# after the opening ones) is one too, matched apart since its two ends differ.
_ADOC_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,})[ \t]*$")


def _read_asciidoc(doc: Doc) -> list[Section]:
    """`== Title` headings (`=` the document's title), and the older two-line ones: a title
    underlined by `=`, `-`, `~`, `^` or `+` to within two characters of its length."""
    lines = doc.lines
    headings: list[tuple[int, int, str, int]] = []
    block = ""
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        fence = line.startswith("```")
        if block:
            if line == block or (fence and block == "```"):
                block = ""
            i += 1
            continue
        under = lines[i + 1].rstrip() if i + 1 < len(lines) else ""
        if (
            line
            and not line[0].isspace()
            and not line.startswith(("[", ".", "//", ":", "*", "-", "|"))
            and not _ADOC_DELIMITER.match(line)
            and len(set(under)) == 1
            and under[0] in _ADOC_UNDERLINE
            and abs(len(under) - len(line)) <= 2
            and (i == 0 or not lines[i - 1].strip())
        ):
            headings.append((i, _ADOC_UNDERLINE[under[0]], line.strip(), i + 2))
            i += 2
            continue
        if fence:
            block = "```"
        elif _ADOC_DELIMITER.match(line):
            block = line
        elif (match := _ADOC_TITLE.match(line)) is not None:
            headings.append((i, len(match.group(1)), match.group(2).strip(), i + 1))
        i += 1
    return _heading_tree(doc, headings)


def _heading_tree(doc: Doc, headings: list[tuple[int, int, str, int]]) -> list[Section]:
    """Each heading is a unit of its own text (to the next heading of any level); its qualname
    is its path of headings (`Usage > Install from source`)."""
    sections: list[Section] = []
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
            Section(
                name=title,
                start=line,
                signature=doc.lines[line].strip() if body == line + 1 else title,
                docstring=_first_paragraph(doc.lines[body:following]),
                path=tuple(t for lv, t in stack if lv != title_level or len(stack) == 1),
            )
        )
    return sections


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


FORMATS = (
    TextFormat(
        "markdown", _read_markdown, suffixes=".md .markdown .mdx", separator=" > ", titled=True
    ),
    TextFormat("rst", _read_rst, suffixes=".rst", separator=" > ", titled=True),
    TextFormat(
        "asciidoc", _read_asciidoc, suffixes=".adoc .asciidoc .asc", separator=" > ", titled=True
    ),
)
