"""Build files: Dockerfiles and Makefiles, a section per build stage (`FROM ... AS name`) or per
target, each with the comment lines above it; MSBuild and Maven project files (XML), blocks that
start at the root element's children (`<PropertyGroup>`, `<Target Name="Pack">`,
`<dependencies>`), packed together while they fit."""

from __future__ import annotations

import re
from bisect import bisect_right

from indexing.text_formats.sections import Doc, Section, TextFormat, leading_comments, packed

_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", re.I)


def _read_dockerfile(doc: Doc) -> list[Section]:
    sections = []
    for i, line in enumerate(doc.lines):
        match = _FROM.match(line)
        if match is not None:
            name = match.group(2) or match.group(1)
            start = leading_comments(doc.lines, i, ("#",))
            sections.append(Section(name=name, start=start, signature=line.strip(), path=(name,)))
    return sections


_MAKE_TARGET = re.compile(r"^([^\s:#=][^:#=]*?)\s*(::?)(?!=)")
_MAKE_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z0-9_.\-]+)\s*(?:[:+?!]?=|::=)")
_MAKE_DIRECTIVE = re.compile(
    r"^(-?include|sinclude|ifn?eq|ifn?def|else|endif|define|endef|export|unexport|vpath)\b"
)
_MAKE_SPECIAL = re.compile(r"^\.[A-Z_]+$")  # .PHONY, .SUFFIXES: not targets anyone asks about


def _read_makefile(doc: Doc) -> list[Section]:
    """A target (with the comment lines above it) and its recipe; a run of variables that
    follows a blank line after a recipe is a section named after its first variable."""
    sections: list[Section] = []
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
                start = leading_comments(doc.lines, i, ("#",))
                sections.append(
                    Section(name=names[0], start=start, signature=line.strip(), path=(names[0],))
                )
            in_recipe = True
        elif assign is not None and (in_recipe or not sections) and previous_blank:
            start = leading_comments(doc.lines, i, ("#",))
            name = assign.group(1)
            sections.append(Section(name=name, start=start, signature=line.strip(), path=(name,)))
            in_recipe = False
        elif not line.startswith("#"):
            in_recipe = in_recipe and not previous_blank
        previous_blank = False
    return sections


# XML as far as a build file needs it: comments, CDATA, declarations and processing
# instructions are skipped whole; a tag opens (group 1 its name), closes (a leading `/`) or
# closes itself (a trailing `/`).
_XML_TOKEN = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[?!][^>]*>|<(/?)([A-Za-z_][\w.:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>",
    re.S,
)
# The attribute that tells one MSBuild block from another of the same element.
_XML_LABEL = re.compile(r"\b(?:Name|Label|Include|Project)\s*=\s*[\"']([^\"']{1,80})")


def _read_xml_build(doc: Doc) -> list[Section]:
    """A block per child of the root element, with the comments right above it."""
    text = "\n".join(doc.lines)
    line_starts = [0]
    for line in doc.lines:
        line_starts.append(line_starts[-1] + len(line) + 1)
    starts: list[tuple[int, str, str]] = []
    depth = 0
    comment_row = None  # the first row of the comments since the last block at depth 1
    for token in _XML_TOKEN.finditer(text):
        row = bisect_right(line_starts, token.start()) - 1
        closing, tag = token.group(1), token.group(2)
        if tag is None:
            if depth == 1 and token.group(0).startswith("<!--") and comment_row is None:
                comment_row = row
            continue
        if closing:
            depth = max(0, depth - 1)
            continue
        if depth == 1:
            label = _XML_LABEL.search(token.group(3) or "")
            label_text = label.group(1).strip() if label else ""
            name = f"{tag} {label_text}" if label_text else tag
            starts.append((row if comment_row is None else comment_row, name, doc.lines[row]))
            comment_row = None
        if not token.group(4):
            depth += 1
    return packed(doc, starts)


FORMATS = (
    TextFormat(
        "dockerfile",
        _read_dockerfile,
        suffixes=".dockerfile",
        names=("dockerfile", "containerfile"),
        stems=("dockerfile", "containerfile"),
    ),
    TextFormat(
        "makefile",
        _read_makefile,
        suffixes=".mk",
        names=("makefile", "gnumakefile"),
        stems=("makefile",),
    ),
    # MSBuild's project, property and target files and Maven's and Ant's project files.
    TextFormat(
        "xml",
        _read_xml_build,
        suffixes=".csproj .fsproj .vbproj .props .targets .proj .nuspec",
        names=("pom.xml", "build.xml", "ivy.xml"),
    ),
)
