"""Dockerfiles and Makefiles: a section per build stage (`FROM ... AS name`) or per target,
each with the comment lines above it."""

from __future__ import annotations

import re

from indexing.text_formats.sections import Doc, Section, TextFormat, leading_comments

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
)
