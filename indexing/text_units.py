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

This module is the registry: which format reads a file, by its name. The shared machinery is
indexing.text_formats.sections; each format family is a module beside it, and a new format is
a `TextFormat` there, listed in `FORMATS` here.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from indexing.text_formats import build, config, markup, prose, sql
from indexing.text_formats.sections import MAX_CHARS, MAX_LINES, TextFormat, parse_sections
from indexing.units import ParsedFile

__all__ = [
    "FORMATS",
    "LOCK_FILE_NAMES",
    "MAX_CHARS",
    "MAX_LINES",
    "PAGE_FORMATS",
    "TEXT_FORMATS",
    "is_documentation_page",
    "parse_text_file",
    "text_format_for_path",
]

# Lock files are data a tool wrote, never read by people (`indexing.file_selection` skips them).
_LOCK_FILES = """
    package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lock bun.lockb deno.lock
    Cargo.lock poetry.lock Pipfile.lock pdm.lock uv.lock Gemfile.lock composer.lock go.sum
    go.work.sum mix.lock flake.lock Podfile.lock Package.resolved pubspec.lock packages.lock.json
    gradle.lockfile conda-lock.yml Chart.lock .terraform.lock.hcl
"""
LOCK_FILE_NAMES = frozenset(_LOCK_FILES.split())
FORMATS: tuple[TextFormat, ...] = (
    *prose.FORMATS,
    *config.FORMATS,
    *build.FORMATS,
    *sql.FORMATS,
    *markup.FORMATS,
)
TEXT_FORMATS = tuple(f.name for f in FORMATS)
# The formats people write pages of prose in (a guide, a README), as against configuration and
# build files, which hold the settings a question may be after.
PAGE_FORMATS = frozenset(f.name for f in prose.FORMATS)
_BY_NAME = {f.name: f for f in FORMATS}
_SUFFIXES = {suffix: f.name for f in FORMATS for suffix in f.suffixes.split()}
_NAMES = {name: f.name for f in FORMATS for name in f.names}
_STEMS = {stem + ".": f.name for f in FORMATS for stem in f.stems}


def text_format_for_path(path: str) -> str | None:
    """The format this module reads a file in (`markdown`, `yaml`, `dockerfile`...), by its name,
    or None: lock files and anything else are not read here."""
    name = PurePosixPath(path).name
    if not name or name in LOCK_FILE_NAMES:
        return None
    lowered = name.lower()
    if lowered in _NAMES:
        return _NAMES[lowered]
    for stem, fmt in _STEMS.items():  # Dockerfile.dev, Makefile.am
        if lowered.startswith(stem):
            return fmt
    # `page.html.j2`, `page.html.erb`: their last suffix is a template's.
    return _SUFFIXES.get(PurePosixPath(lowered).suffix)


def is_documentation_page(path: str) -> bool:
    """The file is a page of prose (Markdown, reStructuredText, AsciiDoc)."""
    return text_format_for_path(path) in PAGE_FORMATS


def parse_text_file(source: bytes, *, path: str) -> ParsedFile | None:
    """The file's sections as `section` units, or None when `path` is no format read here."""
    fmt = text_format_for_path(path)
    if fmt is None:
        return None
    return parse_sections(source, path=path, text_format=_BY_NAME[fmt])
