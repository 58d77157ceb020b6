"""What stands around a definition's code: its doc comment, attributes and decorators above
it, its signature, and the file's own leading doc comment.

Doc comments are read from the source lines right above a definition (no blank line between),
with the language's markers (`/**`, `///`, `#`, `-- |`...) taken off; a definition's span
starts at its doc comment and at the attributes, decorators or signatures attached above it.
Which markers and attributes count is each language's data (indexing.languages).
"""

from __future__ import annotations

import re
import textwrap

from tree_sitter import Node

from indexing.code_definitions import Definition, node_text
from indexing.languages import LanguageSpec

SIGNATURE_CHARS = 400
# Node types that hold a definition's body when the grammar names no `body` field.
_BODY_TYPES = frozenset(
    {
        "block",
        "compound_statement",
        "function_body",
        "class_body",
        "declaration_list",
        "field_declaration_list",
        "do_block",
        "enum_body",
        "enum_class_body",
        "interface_body",
        "protocol_body",
        "statement_block",
        "template_body",
        "body_statement",
        "object_body",
        "struct_declaration",
    }
)
BLOCK_OPENERS = ("/**", "/*!", "/*", "{-|", "{-", "--[[", "<#")
BLOCK_CLOSERS = ("*/", "-}", "]]", "#>")
LINE_MARKERS = ("///", "//!", "//", "-- |", "--|", "-- ^", "---", "--", "#!", "#")
_XML_TAG = re.compile(r"</?(summary|remarks|para|returns|value|example|c|code)\s*>")
# PowerShell's comment-based help keywords (`.SYNOPSIS`, `.PARAMETER Name`): markup, like
# C#'s XML tags.
_HELP_KEYWORD = re.compile(
    r"^\.(?:SYNOPSIS|DESCRIPTION|PARAMETER|EXAMPLE|NOTES|INPUTS|OUTPUTS|LINK)\b[ \t]*", re.M
)
_LICENCE = re.compile(r"copyright|licen[cs]e|spdx|generated|-\*-|frozen_string_literal", re.I)


def attached(definition: Definition, lines: list[str], spec: LanguageSpec):
    """The first row of a definition's span (doc comment, attributes, signatures above it),
    its doc text, its decorators and a signature sibling (Haskell's `f :: a -> b`)."""
    if definition.attached is None:
        definition.attached = _find_attached(definition, lines, spec)
    return definition.attached


def _find_attached(definition: Definition, lines: list[str], spec: LanguageSpec):
    outer = definition.outer
    start_row = outer.start_point[0]
    doc = ""
    decorators: list[str] = []
    signature_node = None
    anchor = outer
    while True:
        found = doc_above(lines, start_row, spec)
        if found is not None:
            start_row, text = found
            doc = doc or text
        sibling = anchor.prev_named_sibling
        while sibling is not None and sibling.type in spec.comment_types:
            if sibling.start_point[0] < start_row:
                break
            sibling = sibling.prev_named_sibling
        if sibling is None or sibling.end_point[0] < start_row - 1:
            break
        text = sibling.text.decode("utf-8", errors="replace") if sibling.text else ""
        if spec.doc_attributes and text.startswith(spec.doc_attributes):
            doc = doc or _attribute_doc(text, spec.doc_attributes)
        elif sibling.type in spec.attached_types or (
            spec.attached_prefixes and text.startswith(spec.attached_prefixes)
        ):
            if sibling.type == "signature":
                signature_node = sibling
            else:
                decorators.append(" ".join(text.lstrip("@#").split())[:200])
        else:
            break
        start_row = sibling.start_point[0]
        anchor = sibling
    return start_row, doc, tuple(reversed(decorators)), signature_node


def doc_above(lines: list[str], row: int, spec: LanguageSpec) -> tuple[int, str] | None:
    """The doc comment ending on the line right above `row`: (its first row, its text)."""
    above = row - 1
    if above < 0:
        return None
    last = lines[above].strip()
    if spec.doc_blocks and last.endswith(BLOCK_CLOSERS):
        first = above
        while first >= 0 and above - first < 400:
            if lines[first].lstrip().startswith(BLOCK_OPENERS):
                break
            first -= 1
        if first < 0 or not lines[first].lstrip().startswith(spec.doc_blocks):
            return None
        if first != above and not lines[first].strip().startswith(BLOCK_OPENERS):
            return None
        return first, _clean_comment(lines[first : above + 1])
    if not spec.doc_lines:
        return None
    markers = tuple(dict.fromkeys(re.match(r"[^\w\s|^]+", p).group() for p in spec.doc_lines))
    first = above
    while first >= 0 and lines[first].lstrip().startswith(markers):
        first -= 1
    group = range(first + 1, above + 1)
    for candidate in group:
        if lines[candidate].lstrip().startswith(spec.doc_lines):
            if lines[candidate].lstrip().startswith("#!"):
                continue  # a shebang is no doc
            return candidate, _clean_comment(lines[candidate : above + 1])
    return None


def _clean_comment(lines: list[str]) -> str:
    cleaned = []
    for raw in lines:
        line = raw.strip()
        for opener in BLOCK_OPENERS:
            if line.startswith(opener):
                line = line[len(opener) :]
                break
        for closer in BLOCK_CLOSERS:
            if line.endswith(closer):
                line = line[: -len(closer)]
                break
        line = line.rstrip()
        for marker in LINE_MARKERS:
            if line.startswith(marker):
                line = line[len(marker) :]
                break
        else:
            if line.startswith("*"):
                line = line[1:]
        cleaned.append(line)
    text = textwrap.dedent("\n".join(cleaned))
    text = _HELP_KEYWORD.sub("", _XML_TAG.sub("", text))
    return "\n".join(line.rstrip() for line in text.strip().split("\n")).strip()


def _attribute_doc(text: str, prefixes: tuple[str, ...]) -> str:
    """`@doc \"\"\"...\"\"\"` -> its text; `@doc false` -> nothing."""
    for prefix in prefixes:
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
            break
    text = re.sub(r"^~[sS]", "", text)
    for quote in ('"""', "'''", '"'):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            return textwrap.dedent(text[len(quote) : -len(quote)]).strip()
    return ""


def body_doc(node: Node, source: bytes, spec: LanguageSpec) -> str:
    """A doc attribute among the first statements of a type's body (`@moduledoc`)."""
    body = _body(node)
    if body is None:
        return ""
    for child in body.named_children[:3]:
        text = node_text(child, source)
        if text.startswith(spec.body_doc_attributes):
            return _attribute_doc(text, spec.body_doc_attributes)
    return ""


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for child in node.children:
        if child.type in _BODY_TYPES:
            return child
    return None


def signature(definition: Definition, signature_node: Node | None, source: bytes) -> str:
    """The definition's head on one line (up to its body), or its signature sibling's."""
    if signature_node is not None:
        return " ".join(node_text(signature_node, source).split())[:SIGNATURE_CHARS]
    outer = definition.outer
    body = _body(definition.node)
    if body is not None and body.start_byte > outer.start_byte:
        header = source[outer.start_byte : body.start_byte].decode("utf-8", errors="replace")
    else:
        header = node_text(outer, source).split("\n", 1)[0]
        header = header.split("{", 1)[0]
    kept = [line for line in header.split("\n") if not line.strip().startswith(LINE_MARKERS)]
    header = " ".join(" ".join(kept).split()).rstrip("{:= ").strip()
    return header[:SIGNATURE_CHARS]


def module_doc_comment(lines: list[str], spec: LanguageSpec, first_lines: set[int]):
    """The file's leading doc comment (a Go package comment, `//!`, a file-level JSDoc, a C
    header's opening comment): its text and rows; a comment that documents the first
    definition is that definition's. Copyright and licence paragraphs are not documentation:
    they are dropped, and a comment that is nothing else is passed over for the next one (a
    header's licence, its include guard, then the comment that explains it)."""
    if not spec.module_doc_lines and not spec.module_doc_blocks:
        return "", range(0)
    preamble = re.compile(spec.module_preamble) if spec.module_preamble else None
    row = 0
    for _ in range(MODULE_DOC_COMMENTS):
        while row < len(lines) and (
            not lines[row].strip()
            or lines[row].startswith(("#!", "<?php", "<?"))
            or (preamble is not None and preamble.match(lines[row].lstrip()))
        ):
            row += 1
        block = _comment_at(lines, row, spec)
        if block is None:
            return "", range(0)
        end = block
        text = _without_licence(_clean_comment(lines[row : end + 1]))
        if text:
            break
        row = end + 1
    else:
        return "", range(0)
    following = end + 1
    attached = following in first_lines and following < len(lines)
    is_package = following < len(lines) and lines[following].startswith(("package ", "module "))
    if attached and not is_package:
        return "", range(0)
    return text, range(row, end + 1)


# How many comments at a file's start are looked through for its documentation.
MODULE_DOC_COMMENTS = 3


def _comment_at(lines: list[str], row: int, spec: LanguageSpec) -> int | None:
    """The last row of the module doc comment starting at `row`, or None when none does."""
    if row >= len(lines):
        return None
    line = lines[row].lstrip()
    end = row
    if spec.module_doc_blocks and line.startswith(BLOCK_OPENERS):
        if not line.startswith(spec.module_doc_blocks):
            return None
        while end < len(lines) and not lines[end].rstrip().endswith(BLOCK_CLOSERS):
            end += 1
    elif spec.module_doc_lines and line.startswith(spec.module_doc_lines):
        marker = re.match(r"[^\w\s|^]+", line).group()
        while end + 1 < len(lines) and lines[end + 1].lstrip().startswith(marker):
            end += 1
    else:
        return None
    return end if end < len(lines) else None


def _without_licence(text: str) -> str:
    """The comment's paragraphs that are not a copyright notice, a licence or a generated-file
    or editor marker."""
    paragraphs = re.split(r"\n\s*\n", text)
    kept = [p for p in paragraphs if p.strip() and not _LICENCE.search(p[:300])]
    return "\n\n".join(kept).strip()
