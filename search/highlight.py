"""Code shown on result pages: Pygments, with the file's own line numbers.

A unit is lexed once, whole, and any run of its lines (the excerpt's window, its signature line,
the first lines of the fold) is formatted from those tokens. Lexing a window alone would be
wrong wherever it starts inside a multi-line string: the docstring's closing quotes would open
a string that runs to the window's end.

Each unit is lexed as its language (`CodeUnit.language`: Go as Go, a Markdown section as
Markdown); a template file's sections as HTML with its template tags.

Pygments escapes every character of the source, so code from a repository can never inject
markup into the page.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from functools import cache

from pygments import format as format_tokens
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.token import Text, _TokenType
from pygments.util import ClassNotFound

from search.excerpts import source_lines

MAX_LINES = 80

Token = tuple[_TokenType, str]
Line = tuple[Token, ...]  # one source line's tokens, its newline last


# Pygments' names where they differ from the unit's language.
_PYGMENTS_NAMES = {"dockerfile": "docker", "makefile": "make"}
# Template files (`indexing.text_units` reads them as html) by extension.
_TEMPLATE_SUFFIXES = (".jinja", ".jinja2", ".j2", ".djhtml")


@cache
def _lexer(name: str = "python") -> Lexer:
    # PHP's lexer would wait for `<?php` before it colours anything: a unit starts inside it.
    options = {"startinline": True} if name == "php" else {}
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, **options)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=True)


def lexer_name(language: str, path: str = "") -> str:
    """The Pygments lexer for a unit of `language` in the file at `path`."""
    if language == "html" and (path.endswith(_TEMPLATE_SUFFIXES) or "templates/" in path):
        return "html+jinja"
    return _PYGMENTS_NAMES.get(language, language or "python")


def _lexable(code: str) -> str:
    """The code as the lexer should see it, its line feeds exactly the file's line ends."""
    # Pygments would turn a lone CR into a line break the parser does not count; dropping it keeps
    # the token lines the file's lines (it shows as nothing anyway).
    return "\n".join(line.replace("\r", "") for line in source_lines(code))


def _split_lines(tokens: Iterable[Token]) -> Iterator[Line]:
    """The token stream cut at line ends, one line at a time.

    A token spanning lines (a docstring) is cut into one piece per line, each keeping the
    token's type, so a line inside a docstring still formats as docstring.
    """
    line: list[Token] = []
    for ttype, value in tokens:
        *ended, rest = value.split("\n")
        for piece in ended:
            line.append((ttype, piece + "\n"))
            yield tuple(line)
            line = []
        if rest:
            line.append((ttype, rest))


def _stripped(line: Line) -> Line:
    """The line without its indentation and trailing blanks, as the excerpt's signature shows."""
    tokens = [(ttype, value.rstrip("\n")) for ttype, value in line]
    while tokens and not tokens[0][1].strip():
        tokens.pop(0)
    while tokens and not tokens[-1][1].strip():
        tokens.pop()
    if tokens:
        tokens[0] = (tokens[0][0], tokens[0][1].lstrip())
        tokens[-1] = (tokens[-1][0], tokens[-1][1].rstrip())
    return (*tokens, (Text.Whitespace, "\n"))


def _html(lines: list[Line], first_number: int) -> str:
    formatter = HtmlFormatter(
        linenos="table", linenostart=first_number, cssclass="code", wrapcode=True
    )
    return format_tokens([token for line in lines for token in line], formatter)


class HighlightedUnit:
    """A unit's code lexed once, whole; runs of its lines as HTML numbered with the file's lines.

    Lexing stops at the last line asked for: the lexer reads the whole text, so those tokens are
    the ones a full lexing gives, and a giant unit costs only the lines the page shows.
    """

    def __init__(
        self, code: str, start_line: int, *, language: str = "python", path: str = ""
    ) -> None:
        self.start_line = start_line  # the file line of the code's first line
        self._count = len(source_lines(code))
        lexer = _lexer(lexer_name(language, path))
        self._pending = _split_lines(lexer.get_tokens(_lexable(code)))
        self._lines: list[Line] = []

    def _first(self, count: int) -> list[Line]:
        missing = count - len(self._lines)
        if missing > 0:
            self._lines.extend(itertools.islice(self._pending, missing))
        return self._lines[:count]

    def lines(self, first_line: int, last_line: int) -> str:
        """HTML for file lines `first_line` to `last_line`, inclusive, within the unit."""
        start = max(0, first_line - self.start_line)
        return _html(self._first(last_line - self.start_line + 1)[start:], self.start_line + start)

    def line_stripped(self, file_line: int) -> str:
        """HTML for one line without its indentation (the signature above a folded gap)."""
        line = self._first(file_line - self.start_line + 1)[-1]
        return _html([_stripped(line)], file_line)

    def whole(self, *, max_lines: int = MAX_LINES) -> tuple[str, bool]:
        """HTML for the unit's first `max_lines` lines, and whether it was cut."""
        return _html(self._first(max_lines), self.start_line), self._count > max_lines


@cache
def stylesheet() -> str:
    return HtmlFormatter(cssclass="code").get_style_defs(".code")
