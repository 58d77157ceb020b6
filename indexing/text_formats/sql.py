"""SQL: a section per statement, with the comments above it; runs of the same kind of data
statement share one."""

from __future__ import annotations

import re

from indexing.text_formats.sections import Doc, Section, TextFormat, leading_comments

_SQL_START = re.compile(
    r"^\s*(CREATE|ALTER|DROP|INSERT|UPDATE|DELETE|SELECT|WITH|GRANT|REVOKE|COMMENT|TRUNCATE|"
    r"BEGIN|COMMIT|SET|DO|COPY|REPLACE|MERGE|DECLARE|USE|EXPLAIN|VACUUM|ANALYZE|CALL|EXEC|PRAGMA)\b",
    re.I,
)
_SQL_OBJECT = re.compile(
    r"^\s*(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+|UNIQUE\s+|MATERIALIZED\s+"
    r"|RECURSIVE\s+|GLOBAL\s+|LOCAL\s+|UNLOGGED\s+)*(TABLE|VIEW|INDEX|FUNCTION|PROCEDURE|TRIGGER|"
    r"TYPE|SEQUENCE|SCHEMA|EXTENSION|DOMAIN|POLICY|DATABASE|ROLE|AGGREGATE|RULE)\s+"
    r"(?:CONCURRENTLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([`\"\[]?[\w.$\"`\]\[]+)",
    re.I,
)
_SQL_TARGET = re.compile(
    r"^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY|TRUNCATE(?:\s+TABLE)?)\s+([`\"\[]?[\w.$\"`\]\[]+)",
    re.I,
)


_QUOTES = '`"[]'


def _read_sql(doc: Doc) -> list[Section]:
    """A statement from its first keyword (and the comments above) to the line where a `;`
    ends it outside strings, comments and `$$` bodies. DDL statements are units of their own;
    runs of the same kind of data statement (`INSERT INTO users` ...) share one."""
    sections: list[Section] = []
    i, lines = 0, doc.lines
    while i < len(lines):
        if not _SQL_START.match(lines[i]):
            i += 1
            continue
        start = leading_comments(lines, i, ("--",))
        end = _sql_statement_end(lines, i)
        statement = lines[i]
        obj = _SQL_OBJECT.match(statement)
        target = _SQL_TARGET.match(statement)
        if obj is not None:
            name = obj.group(2).strip(_QUOTES)
            signature = " ".join(statement.split())[:300]
            sections.append(Section(name=name, start=start, signature=signature, path=(name,)))
        else:
            verb = (target.group(1) if target else statement.split()[0]).upper()
            verb = " ".join(verb.split())
            name = f"{verb} {target.group(2).strip(_QUOTES)}" if target else verb
            last = sections[-1] if sections else None
            if last is not None and last.name == name and doc.fits(last.start, end):
                i = end
                continue  # the same kind of statement as the one before: one unit
            signature = " ".join(statement.split())[:300]
            sections.append(Section(name=name, start=start, signature=signature, path=(name,)))
        i = end
    return sections


def _sql_statement_end(lines: list[str], i: int) -> int:
    dollar = ""
    quote = ""
    for j in range(i, len(lines)):
        line = lines[j]
        k = 0
        while k < len(line):
            c = line[k]
            if dollar:
                if line.startswith(dollar, k):
                    k += len(dollar)
                    dollar = ""
                    continue
            elif quote:
                if c == quote:
                    quote = ""
            elif c in "'\"":
                quote = c
            elif line.startswith("--", k):
                break
            elif c == "$" and (m := re.match(r"\$[A-Za-z_]*\$", line[k:])):
                dollar = m.group(0)
                k += len(dollar)
                continue
            elif c == ";":
                return j + 1
            k += 1
        if j + 1 < len(lines) and not dollar and not quote and not lines[j + 1].strip():
            # A blank line after a statement with no `;` (a psql script, a broken file) ends it
            # when the next non-blank line begins another statement.
            following = next((x for x in lines[j + 1 :] if x.strip()), "")
            if _SQL_START.match(following) and not re.match(
                r"^\s*(SELECT|WITH)\b", following, re.I
            ):
                return j + 1
    return len(lines)


FORMATS = (TextFormat("sql", _read_sql, suffixes=".sql"),)
