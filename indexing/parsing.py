"""Source file -> code units: the one entry point, `parse_source`, dispatching by path.

- Python (`.py`, `.pyi`, or no path at all): indexing.python_units, tree-sitter-python walked by
  hand (decorators, overloads, named lambdas, `if __name__ == "__main__":` blocks).
- The other code languages (indexing.languages: JavaScript, TypeScript, Go, Rust, ...): one
  language-neutral extractor driven by each language's definition query (indexing.code_units).
- Documentation and configuration files (Markdown, YAML, Dockerfile, ...): indexing.text_units,
  as `section` units.

The unit types, the kind constants and `summary_line` live in indexing.units and are importable
from here, as they always were.
"""

from __future__ import annotations

import logging

from indexing.languages import language_for_path
from indexing.python_units import parse_python, parse_tree
from indexing.text_units import parse_text_file
from indexing.units import (
    CLASS,
    FUNCTION,
    METHOD,
    MODULE,
    SECTION,
    SUMMARY_CHARS,
    UNIT_KINDS,
    ParsedFile,
    ParsedUnit,
    summary_line,
)

logger = logging.getLogger(__name__)

__all__ = [
    "CLASS",
    "FUNCTION",
    "METHOD",
    "MODULE",
    "PARSER_VERSION",
    "SECTION",
    "SUMMARY_CHARS",
    "UNIT_KINDS",
    "ParsedFile",
    "ParsedUnit",
    "parse_source",
    "parse_tree",
    "summary_line",
]

SNIFF_BYTES = 8192  # a file's language is read from its start (shebang, mode line, C++ in a .h)
# Names what `parse_source` makes of a file; bump it when that changes, so that files indexed
# before are parsed again on their next run (their content hash alone would carry them over).
PARSER_VERSION = "units-11"


def parse_source(source: bytes, *, path: str = "") -> ParsedFile:
    """The units of one file, in file order (definitions, then the module blocks between
    them; sections for text formats). `path` picks the language and names module blocks that
    define nothing; without one the source is read as Python. A file that is neither code nor a
    text format RepoRift reads yields no units."""
    spec = language_for_path(path, source[:SNIFF_BYTES]) if path else None
    try:
        if not path or (spec is not None and spec.name == "python"):
            return parse_python(source, path=path)
        if spec is not None:
            from indexing.code_units import parse_code

            return parse_code(source, spec, path=path)
        parsed = parse_text_file(source, path=path)
    except (RecursionError, MemoryError, ValueError) as exc:
        # A hostile or pathological file (nesting thousands deep) must not sink the run: it is
        # left out with its reason in the run's warnings, and every other file is indexed.
        logger.warning("%s could not be parsed: %s: %s", path, type(exc).__name__, exc)
        language = spec.name if spec is not None else ""
        return ParsedFile(language=language, failure=f"{type(exc).__name__}: {exc}"[:300])
    return parsed if parsed is not None else ParsedFile(language="")
