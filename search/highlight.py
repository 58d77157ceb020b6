"""Code shown on result pages: Pygments, with the file's own line numbers.

Pygments escapes every character of the source, so code from a repository can never inject
markup into the page.
"""

from __future__ import annotations

from functools import cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

MAX_LINES = 80


@cache
def _lexer() -> PythonLexer:
    return PythonLexer(stripnl=False, ensurenl=True)


def highlight_unit(code: str, start_line: int, *, max_lines: int = MAX_LINES) -> tuple[str, bool]:
    """HTML for the code with line numbers starting at `start_line`, and whether it was cut."""
    lines = code.splitlines()
    cut = len(lines) > max_lines
    if cut:
        code = "\n".join(lines[:max_lines])
    formatter = HtmlFormatter(
        linenos="table", linenostart=start_line, cssclass="code", wrapcode=True
    )
    return highlight(code, _lexer(), formatter), cut


@cache
def stylesheet() -> str:
    return HtmlFormatter(cssclass="code").get_style_defs(".code")
