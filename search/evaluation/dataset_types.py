"""What every evaluation dataset becomes, whatever its format: corpora, queries and their
targets, and the readers the loaders share (kept apart from the loaders so that a loader in its
own module imports these without importing the module that dispatches to it)."""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class DatasetError(ValueError):
    pass


@dataclass(frozen=True)
class GoldUnit:
    """A target. In a repository: a unit (`qualname`), a line span (`lines`), or, with neither,
    a whole file; in a snippet corpus, a snippet id."""

    path: str  # file path in a repository, or the snippet id
    qualname: str = ""
    relevance: float = 1.0
    lines: tuple[int, int] | None = None  # 1-based, inclusive; a result covers it by overlap
    primary: bool = True  # Success@k and MRR count primary targets only

    def as_json(self) -> dict[str, Any]:
        """How a report shows the target (defaults left out)."""
        return (
            {"path": self.path, "qualname": self.qualname}
            | ({"lines": list(self.lines)} if self.lines else {})
            | ({"relevance": self.relevance} if self.relevance != 1 else {})
            | ({} if self.primary else {"primary": False})
        )

    def covered_by(self, *, path: str, unit: Any) -> bool:
        """Whether a result in a repository (a unit with a kind, a qualname and lines) covers
        this target: a unit target by its qualname or the class that encloses it (RepoRift's
        rule), a span (and a unit target resolved to its lines) by overlapping lines, a file
        by lying in it."""
        if self.path != path:
            return False
        if self.lines is not None:
            start, end = self.lines
            return unit.start_line <= end and start <= unit.end_line
        if not self.qualname:
            return True
        if unit.kind == "module":  # a module-level name: the block that binds it
            return self.qualname in (getattr(unit, "defines", None) or ())
        return self.qualname == unit.qualname or (
            unit.kind == "class" and self.qualname.startswith(unit.qualname + ".")
        )


@dataclass
class Corpus:
    key: str
    kind: str  # "repo" or "snippets"
    source: str = ""
    ref: str = ""
    snippets: dict[str, str] = field(default_factory=dict)

    def content_hash(self, salt: str = "") -> str:
        digest = hashlib.sha256(f"{self.kind}\0{self.source}\0{self.ref}\0{salt}".encode())
        for snippet_id in sorted(self.snippets):
            digest.update(f"\0{snippet_id}\0{self.snippets[snippet_id]}".encode())
        return digest.hexdigest()[:16]


@dataclass
class EvalQuery:
    query_id: str
    query: str
    corpus: str
    gold: list[GoldUnit]
    kind: str = ""  # the developer-question kind, where the dataset has kinds
    language: str = ""  # a question set's language, where it names one (other than Python)
    # A program defining check(candidate): a result is relevant when it passes against it
    # (search.evaluation.execution); the gold then only says what a right answer looks like.
    test: str = ""


@dataclass
class EvalDataset:
    name: str
    format: str
    corpora: dict[str, Corpus]
    queries: list[EvalQuery]


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from exc


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{path}:{number}: expected a JSON object")
        rows.append((number, row))
    return rows


def require(row: dict, key: str, where: str, kind: type = str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind) or (kind is str and not value.strip()):
        raise DatasetError(f"{where}: missing or invalid {key!r}")
    return value


def check_test_program(program: object, where: str) -> str:
    """A row's test program (search.evaluation.execution), when it is a string that parses and
    defines `check(candidate)`."""
    if not isinstance(program, str):
        raise DatasetError(f"{where}: 'test' must be a program (a string)")
    try:
        tree = ast.parse(program)
    except SyntaxError as exc:
        raise DatasetError(f"{where}: the test program does not parse: {exc.msg}") from exc
    arguments = {
        n.name: len(n.args.args)
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    if arguments.get("check") != 1:
        raise DatasetError(f"{where}: the test program must define check(candidate)")
    return program
