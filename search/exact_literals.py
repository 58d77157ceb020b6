"""What text a line must contain to match a pattern: the literals the trigram index looks up.

A literal pattern needs itself. A regular expression is read (by Python's own regex parser: the
syntax RE2 and it share) into clauses that every match satisfies: each clause a few literals of
which a match contains one (`foo(bar|baz)` needs "foobar" or "foobaz"). Only literals of three
characters or more can be looked up; a pattern left with none is scanned instead. Anything the
parser cannot read with certainty gives no clause, never a wrong one: the lookup may then read
more than it needs, but never misses a line that RE2 would match.
"""

from __future__ import annotations

import re
import re._constants as C
import re._parser as P
from dataclasses import dataclass

from indexing.exact_index import Lookup
from search.query_syntax import Pattern

MIN_LITERAL = 3  # a trigram
MAX_ALTERNATIVES = 16  # literals one clause may list
# RE2's POSIX classes (`[[:alpha:]]`) mean a class to RE2 but a "[" and a stray "]" to Python's
# parser: they are read as any word character instead, which is all that matters here.
_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")


@dataclass
class _Info:
    exact: set[str] | None  # every string the node can match, when few and known
    clauses: list[frozenset[str]]  # AND of (OR of literals)


def _usable(strings: set[str] | frozenset[str]) -> bool:
    return bool(strings) and all(len(s) >= MIN_LITERAL for s in strings)


def _clause(exact: set[str] | None) -> list[frozenset[str]]:
    if exact and _usable(exact) and len(exact) <= MAX_ALTERNATIVES:
        return [frozenset(exact)]
    return []


def _concat(items) -> _Info:
    exact: set[str] | None = {""}
    clauses: list[frozenset[str]] = []
    for item in items:
        info = _node(item)
        clauses += info.clauses
        if exact is not None and info.exact is not None:
            joined = {a + b for a in exact for b in info.exact}
            if len(joined) <= MAX_ALTERNATIVES:
                exact = joined
                continue
        # The run of known text ends here: what it spelt is required, and a new run begins.
        if exact is not None:
            clauses += _clause(exact)
        exact = {""} if info.exact is None else info.exact
    return _Info(exact, clauses)


def _best(info: _Info) -> frozenset[str] | None:
    """The most selective clause a node guarantees (its longest shortest literal)."""
    options = [*info.clauses, *_clause(info.exact)]
    options = [c for c in options if _usable(c)]
    return max(options, key=lambda c: min(len(s) for s in c), default=None)


def _node(item) -> _Info:
    op, value = item
    if op is C.LITERAL:
        return _Info({chr(value)}, [])
    if op is C.AT:
        return _Info({""}, [])  # an anchor or boundary matches no text
    if op is C.IN:
        chars = [chr(v) for o, v in value if o is C.LITERAL]
        if chars and len(chars) == len(value) and len(chars) <= 4:
            return _Info(set(chars), [])
        return _Info(None, [])
    if op is C.SUBPATTERN:
        _group, add_flags, _del_flags, body = value
        if add_flags & C.SRE_FLAG_IGNORECASE:
            return _Info(None, [])  # a case-less group: its literals are not literal
        return _concat(body)
    if op is C.BRANCH:
        infos = [_concat(branch) for branch in value[1]]
        if all(i.exact is not None for i in infos):
            union = set().union(*(i.exact for i in infos))
            if len(union) <= MAX_ALTERNATIVES:
                return _Info(union, [])
        picks = [_best(i) for i in infos]
        if all(picks):
            alternatives = frozenset().union(*picks)
            if len(alternatives) <= MAX_ALTERNATIVES:
                return _Info(None, [alternatives])
        return _Info(None, [])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        low, _high, body = value
        if low == 0:
            return _Info(None, [])
        info = _concat(body)
        return _Info(None, [*info.clauses, *_clause(info.exact)])
    return _Info(None, [])  # ., classes by category, negations: any text


def required_literals(pattern: Pattern) -> Lookup | None:
    """The lookup that finds every line `pattern` matches, or None when the pattern holds no
    literal of three characters that a match must contain."""
    if not pattern.regex:
        if len(pattern.text) < MIN_LITERAL:
            return None
        if pattern.ignore_case and not pattern.text.isascii():
            return None
        return Lookup(((pattern.text,),), ignore_case=pattern.ignore_case)
    try:
        parsed = P.parse(_POSIX_CLASS.sub(r"\\w", pattern.text))
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    ignore_case = pattern.ignore_case or bool(parsed.state.flags & C.SRE_FLAG_IGNORECASE)
    if "(?" in pattern.text and re.search(r"\(\?[a-zA-Z]*i", pattern.text):
        ignore_case = True
    info = _concat(parsed.data)
    clauses = [*info.clauses, *_clause(info.exact)]
    if ignore_case:
        # Case folding beyond ASCII differs between engines: such literals are not used.
        clauses = [c for c in clauses if all(s.isascii() for s in c)]
    clauses = list(dict.fromkeys(c for c in clauses if _usable(c)))
    if not clauses:
        return None
    return Lookup(tuple(tuple(sorted(c)) for c in clauses), ignore_case=ignore_case)


def combined(lookups: list[Lookup | None]) -> Lookup | None:
    """Every pattern must match the line: the clauses of all of them, or None if none has any."""
    usable = [lookup for lookup in lookups if lookup is not None]
    if not usable:
        return None
    return Lookup(
        tuple(clause for lookup in usable for clause in lookup.clauses),
        ignore_case=any(lookup.ignore_case for lookup in usable),
    )
