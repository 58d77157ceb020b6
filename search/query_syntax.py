"""The search box's syntax, the same in every entry point (page, API, command line, MCP):

    "exact text"        a literal (\\" and \\\\ inside quotes for a quote and a backslash)
    /regex/  /regex/i   a regular expression (RE2 syntax; \\/ for a slash), `i`: any case
    path:DIR -path:DIR  only (or not) files under a folder prefix or matching a glob
    lang:go kind:method the unit's language and kind (repeat for several)
    symbol:NAME         only hits inside a definition of that name (a glob with * or ?)
    other words         ranked by meaning, as every search is

A pattern makes the search exact: its answers are the lines that match every pattern, inside
their units, and the free words then order them by meaning. Without a pattern the qualifiers
filter an ordinary search. A mistake is a `QuerySyntaxError` that says where it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import re2

from search.filters import parse_languages
from search.results import SearchError

QUALIFIERS = ("path", "-path", "lang", "kind", "symbol")
# Patterns larger than this compile to automata that are not worth keeping; RE2 refuses them.
MAX_PATTERN_MEMORY = 8 * 2**20


class QuerySyntaxError(SearchError):
    """A query the syntax cannot read; `position` is the 0-based offset of the mistake."""

    def __init__(self, message: str, *, query: str, position: int) -> None:
        self.position = position
        caret = _pointer(query, position)
        super().__init__(f"{message} (at character {position + 1}){caret}")


def _pointer(query: str, position: int) -> str:
    """The query's line with a caret under the mistake: readable in a terminal and on the page."""
    if "\n" in query or len(query) > 200:
        return ""
    return f"\n  {query}\n  {' ' * position}^"


@dataclass(frozen=True)
class Pattern:
    """One literal or regular expression of the query, as typed and as RE2 reads it."""

    text: str  # what was between the quotes or slashes
    regex: bool
    ignore_case: bool = False
    position: int = 0  # where it starts in the query

    @property
    def source(self) -> str:
        """The RE2 expression: a literal is quoted, a flag becomes RE2's inline flag."""
        body = self.text if self.regex else re2.escape(self.text)
        return f"(?i){body}" if self.ignore_case else body

    @property
    def shown(self) -> str:
        if self.regex:
            return f"/{self.text}/" + ("i" if self.ignore_case else "")
        return '"' + self.text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class ParsedQuery:
    words: str = ""  # the free words, in order, ranked by meaning
    patterns: tuple[Pattern, ...] = ()
    paths: tuple[str, ...] = ()
    not_paths: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def exact(self) -> bool:
        """Answered with lines: a pattern, or a symbol named (its definitions' lines)."""
        return bool(self.patterns or self.symbols)

    @property
    def has_syntax(self) -> bool:
        return bool(
            self.patterns
            or self.paths
            or self.not_paths
            or self.languages
            or self.kinds
            or self.symbols
        )


def compile_pattern(pattern: Pattern, *, query: str = ""):
    """The pattern compiled by RE2 (linear time: no input can make it backtrack), or a
    QuerySyntaxError that points at RE2's complaint inside the query."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_PATTERN_MEMORY
    try:
        return re2.compile(pattern.source, options)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        # RE2 names the offending part after a colon ("missing ): (abc"): found in the
        # pattern, that is where the caret goes.
        reason, _, part = message.partition(": ")
        offset = pattern.text.find(part) if part else -1
        start = pattern.position + 1  # past the opening quote or slash
        position = start + offset if offset >= 0 else pattern.position
        if "pattern too large" in message or "repetition size" in message:
            reason = message
        raise QuerySyntaxError(
            f"bad regular expression {pattern.shown}: {reason or message}",
            query=query or pattern.shown,
            position=position if query else max(0, offset + 1),
        ) from None


def parse_query(query: str) -> ParsedQuery:
    """Read the box's syntax (the module docstring) out of `query`."""
    words: list[str] = []
    patterns: list[Pattern] = []
    found: dict[str, list[str]] = {name: [] for name in QUALIFIERS}
    i, n = 0, len(query)
    while i < n:
        if query[i].isspace():
            i += 1
            continue
        start = i
        if query[i] == '"':
            text, i = _quoted(query, i)
            if not text:
                raise QuerySyntaxError("an empty quoted literal", query=query, position=start)
            patterns.append(Pattern(text, regex=False, position=start))
            continue
        if query[i] == "/":
            regex = _slashed(query, i)
            if regex is not None:
                text, ignore_case, i = regex
                pattern = Pattern(text, regex=True, ignore_case=ignore_case, position=start)
                compile_pattern(pattern, query=query)
                patterns.append(pattern)
                continue
        end = i
        while end < n and not query[end].isspace():
            end += 1
        token = query[start:end]
        i = end
        name, colon, value = token.partition(":")
        if colon and name.lower() in found:
            if not value:
                raise QuerySyntaxError(
                    f"{name}: needs a value ({name}:VALUE, no space)", query=query, position=start
                )
            if len(value) > 500:
                raise QuerySyntaxError(f"{name}: is too long", query=query, position=start)
            found[name.lower()].append(value)
            continue
        words.append(token)
    return ParsedQuery(
        words=" ".join(words),
        patterns=tuple(patterns),
        paths=tuple(found["path"]),
        not_paths=tuple(found["-path"]),
        languages=_languages(found["lang"], query),
        kinds=_kinds(found["kind"], query),
        symbols=tuple(dict.fromkeys(found["symbol"])),
    )


def _quoted(query: str, start: int) -> tuple[str, int]:
    """The literal of a quoted run at `start` and the offset after its closing quote."""
    out: list[str] = []
    i = start + 1
    while i < len(query):
        char = query[i]
        if char == "\\" and i + 1 < len(query) and query[i + 1] in '"\\':
            out.append(query[i + 1])
            i += 2
            continue
        if char == '"':
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise QuerySyntaxError(
        'this quote is never closed (a literal is "between quotes"; \\" for a quote inside)',
        query=query,
        position=start,
    )


def _slashed(query: str, start: int) -> tuple[str, bool, int] | None:
    """A regular expression at `start`: up to the first unescaped slash that ends a token
    (followed by a space, the end, or `i` and then either). None when the token does not
    end so (a path such as /etc/hosts stays a word)."""
    i = start + 1
    while i < len(query):
        char = query[i]
        if char == "\\" and i + 1 < len(query):
            i += 2
            continue
        if char == "/":
            after = query[i + 1 : i + 3]
            if not after or after[0].isspace():
                return _regex_body(query, start, i), False, i + 1
            if after[0] == "i" and (len(after) == 1 or after[1].isspace()):
                return _regex_body(query, start, i), True, i + 2
        i += 1
    return None


def _regex_body(query: str, start: int, end: int) -> str:
    # "\/" is a slash; every other escape is RE2's to read.
    body = re.sub(r"\\(.)", lambda m: m[1] if m[1] == "/" else m[0], query[start + 1 : end])
    if not body:
        raise QuerySyntaxError("an empty regular expression", query=query, position=start)
    return body


def _languages(values: list[str], query: str) -> tuple[str, ...]:
    try:
        return parse_languages(values)
    except ValueError as exc:
        raise QuerySyntaxError(str(exc), query=query, position=query.find("lang:")) from None


def _kinds(values: list[str], query: str) -> tuple[str, ...]:
    from indexing.models import CodeUnit

    known = CodeUnit.Kind.values
    for value in values:
        if value.lower() not in known:
            raise QuerySyntaxError(
                f"kind must be one of {', '.join(known)} (not {value!r})",
                query=query,
                position=query.find(f"kind:{value}"),
            )
    return tuple(dict.fromkeys(v.lower() for v in values))


def pattern_query(pattern: str, *, fixed: bool = False, ignore_case: bool = False) -> str:
    """The box's spelling of one pattern (what `grep` and MCP's grep_code take apart), so that
    they ask exactly what the same query typed in the box asks."""
    if fixed and not ignore_case:
        return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    body = re2.escape(pattern) if fixed else pattern
    # Every slash not already escaped is escaped, so that it does not end the expression.
    body = re.sub(r"\\.|/", lambda m: "\\/" if m[0] == "/" else m[0], body, flags=re.S)
    return f"/{body}/" + ("i" if ignore_case else "")


def grep_query(
    pattern: str, *, fixed: bool = False, ignore_case: bool = False, words: str = ""
) -> str:
    """What `reporift grep` and MCP's grep_code ask: one pattern (checked by RE2 first, so a bad
    one is named as typed), then the words that order its lines."""
    if not pattern:
        raise QuerySyntaxError("the pattern is empty", query=pattern, position=0)
    if not fixed:
        compile_pattern(Pattern(pattern, regex=True, ignore_case=ignore_case, position=-1))
    if "\n" in pattern:
        raise QuerySyntaxError(
            "a pattern matches within one line: it cannot hold a line break",
            query=pattern,
            position=pattern.index("\n"),
        )
    query = pattern_query(pattern, fixed=fixed, ignore_case=ignore_case)
    return f"{query} {words}".strip()


def asks_for_lines(query: str) -> bool:
    """Whether the query is answered with matching lines (a literal, a pattern, a symbol); a
    query the syntax cannot read is not (its search says why)."""
    try:
        return parse_query(query).exact
    except SearchError:
        return False
