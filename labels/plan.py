"""What a label run labels: its queries (given, or generated from the repository) and each
query's candidates (the union of several rankers' top results, as CoSQA+ gathers them), and the
read-only copy of the indexed code that test programs import."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from agents.codegen import extract_code
from agents.llm import LLMClient
from agents.prompts import LABEL_QUESTION, code_block
from indexing.models import CodeUnit, Repository
from indexing.parsing import summary_line
from indexing.selectors import active_units
from search.filters import is_test_path
from search.services import FAST_STAGES, search

# The rankers whose top results make a query's candidates: fast mode, the plain embedder over
# the code, and BM25.
RANKERS = {"fast": FAST_STAGES, "S1": ("S1",), "bm25": ("S4",)}
MIN_QUERY_WORDS, MAX_QUERY_WORDS = 3, 30


class PlanError(ValueError):
    pass


def code_id(unit: CodeUnit) -> str:
    return f"{unit.path}::{unit.qualname}"


def _spread(units: list[CodeUnit]) -> list[CodeUnit]:
    """A fixed order that does not follow the file tree, so a sample spans the repository."""
    return sorted(units, key=lambda u: hashlib.sha256(code_id(u).encode()).hexdigest())


def _askable(repository: Repository) -> list[CodeUnit]:
    units = active_units(repository=repository).exclude(
        kind__in=(CodeUnit.Kind.CLASS, CodeUnit.Kind.MODULE)
    )
    return _spread([u for u in units if not is_test_path(u.path)])


def docstring_queries(*, repository: Repository, n: int) -> list[dict]:
    """First sentences of docstrings, as the package benchmark makes its queries."""
    out = []
    for unit in _askable(repository):
        query = summary_line(unit.docstring or "")
        if MIN_QUERY_WORDS <= len(query.split()) <= MAX_QUERY_WORDS:
            out.append({"query": query, "source": "docstring", "origin": code_id(unit)})
        if len(out) == n:
            break
    return out


def clean_question(text: str, unit: CodeUnit) -> str:
    """The LLM's question on one line; ValueError when it is not a usable query."""
    lines = [ln.strip() for ln in (extract_code(text) or text).splitlines() if ln.strip()]
    question = lines[0].strip("\"'` ") if lines else ""
    question = re.sub(r"^(question|query)\s*:\s*", "", question, flags=re.I)
    words = question.split()
    if not MIN_QUERY_WORDS <= len(words) <= MAX_QUERY_WORDS:
        raise ValueError(f"not a question of {MIN_QUERY_WORDS}-{MAX_QUERY_WORDS} words")
    if len(unit.name) > 3 and unit.name.lower() in question.lower():
        raise ValueError("the question names the code it should find")
    return question


def question_queries(
    *, repository: Repository, n: int, client: LLMClient, skip: set[str]
) -> tuple[list[dict], list[dict]]:
    """Developer questions written by the LLM about units (those without a docstring query
    first), and the answers it rejected with why."""
    units = [u for u in _askable(repository) if code_id(u) not in skip]
    units.sort(key=lambda u: bool(u.docstring))
    out, rejected = [], []
    for unit in units[: 3 * n]:
        if len(out) == n:
            break
        answer = client.complete(
            LABEL_QUESTION.messages(code=code_block(unit.code[:1500])),
            purpose="label",
            prompt_version=LABEL_QUESTION.id,
            max_tokens=40,
        )
        try:
            question = clean_question(answer.text, unit)
        except ValueError as exc:
            rejected.append({"origin": code_id(unit), "answer": answer.text[:300], "why": str(exc)})
            continue
        out.append({"query": question, "source": "llm", "origin": code_id(unit)})
    return out, rejected


def load_queries(path: Path) -> list[dict]:
    """A JSON list (of strings, or of objects with "query" and optionally "query_id"), or a
    text file with one query per line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError(f"{path}: cannot read: {exc}") from exc
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
        if not isinstance(data, list):
            raise PlanError(f"{path}: expected a JSON list of queries")
        rows = []
        for number, item in enumerate(data):
            query = item if isinstance(item, str) else (item or {}).get("query")
            if not isinstance(query, str) or not query.strip():
                raise PlanError(f"{path}: item {number} has no query")
            row = {"query": " ".join(query.split()), "source": "given"}
            if isinstance(item, dict) and item.get("query_id"):
                row["query_id"] = str(item["query_id"])
            rows.append(row)
    else:
        rows = [{"query": " ".join(ln.split()), "source": "given"} for ln in text.splitlines()]
        rows = [r for r in rows if r["query"]]
    if not rows:
        raise PlanError(f"{path}: no queries")
    return rows


def candidates(*, repository: Repository, query: str, depth: int) -> list[CodeUnit]:
    """The union of every ranker's top `depth`, in first-found order."""
    seen: dict[int, CodeUnit] = {}
    for stages in RANKERS.values():
        response = search(repository=repository, query=query, k=depth, stages=stages)
        for result in response.results:
            seen.setdefault(result.unit.pk, result.unit)
    return list(seen.values())
