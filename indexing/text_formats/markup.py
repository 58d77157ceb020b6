"""HTML, templates and stylesheets: sized blocks that start at a template block, a landmark
element or a heading (HTML), or at a top-level rule (CSS), packed together while they fit."""

from __future__ import annotations

import re

from indexing.text_formats.sections import Doc, Section, TextFormat, leading_comments, packed

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


def _read_html(doc: Doc) -> list[Section]:
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
    return packed(doc, starts)


def _read_css(doc: Doc) -> list[Section]:
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
            start = leading_comments(doc.lines, i, ("/*", "*", "//"))
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
    return packed(doc, starts)


FORMATS = (
    # Templates are HTML with a template language's blocks; .vue and .svelte are code.
    TextFormat(
        "html",
        _read_html,
        suffixes=".html .htm .jinja .jinja2 .j2 .hbs .handlebars .mustache .ejs .erb .liquid .njk",
    ),
    TextFormat("css", _read_css, suffixes=".css .scss .sass .less"),
)
