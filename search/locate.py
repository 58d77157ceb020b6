"""Paste an issue, get the files to change.

`locate_files` reads the issue (`search.issue_text`), then gathers evidence for every file of
the repository's active generation, each kind with the streams it suits:

- frames: a traceback frame whose path resolves to a file of the repository (and its function);
- paths: a path the issue mentions, resolved the same way; a dotted module name as a path;
- names: the definitions of the names the issue uses (in code first, prose second), each worth
  less the more files define it;
- messages: an error message or quoted text that a unit's code says literally;
- words: BM25 of the whole issue over every unit, added up per file (its best unit, then less
  for the next ones): a file's evidence is all of its units, not the few a unit search keeps;
- meaning: fast mode's own ranking of the title (the learned ranker), and the prose's and each
  code block's vector against the units' code vectors;
- place: the issue's words in a file's folders and name;
- imports: last, what the files the kinds above rank first import, and what imports them
  (`search.import_graph`): the module a traceback's caller leans on, a module's callers.

Each kind ranks the files it has evidence for; the ranks are fused by weighted reciprocal rank
(`LOCATE_WEIGHTS`), so a kind that locates well (a frame inside the repository) outweighs one
that narrates (a word), and each file says which evidence brought it ("traceback frame
line 2495 in to_json_dict", "defines `saferepr`", "says the error message").
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from indexing.models import Repository
from indexing.selectors import active_generation
from indexing.unit_cache import generation_units
from search import issue_evidence as E
from search.file_map import FileMap, file_map
from search.filters import SearchFilters, is_auxiliary_path, is_test_path
from search.import_graph import import_graph
from search.issue_evidence import Evidence
from search.issue_text import IssueClues, read_issue
from search.ranking.docs_questions import mentions_setup
from search.results import SearchError, SearchResponse, SearchResult
from search.retrieval import Retriever, search_config

# How much each kind of evidence counts in the fusion, and how steeply its ranks fall (a
# small constant: the first files of a kind that locates well dominate). Chosen on the issue
# dev set's tuning part (docs/BENCHMARKS.md, "Issues").
LOCATE_WEIGHTS = {
    "frame": 2.0,
    "path": 3.0,
    "name": 1.5,
    "message": 2.0,
    "words": 4.0,
    "title": 1.0,
    "opening": 1.0,
    "meaning": 0.25,
    "code": 0.0,
    "place": 0.25,
    # What the likeliest files (every kind above, fused) import, and what imports them
    # (docs/eval/issues-imports.json: chosen on the tuning part).
    "imported": 2.0,
    "importers": 1.5,
    # Full mode: what the LLM names (measured on the issue dev set; docs/BENCHMARKS.md).
    "suspect": 1.0,
}
RRF_K = 4
IMPORT_SOURCES = 10  # how many of the likeliest files pass evidence along their imports
TEST_FACTOR = 0.5
PROSE_FACTOR = 0.5
AUXILIARY_FACTOR = 0.5
HOST_FACTOR = 0.1  # `.github/`, `.gitlab/`: templates and workflows


@dataclass
class LocatedFile:
    rank: int
    path: str
    score: float
    reasons: list[str]
    units: list[SearchResult] = field(default_factory=list)  # its best units, best first
    repository: str = ""


@dataclass
class LocateResponse:
    files: list[LocatedFile]
    clues: IssueClues
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    index_phase: int = 2


@dataclass
class IssueEvidence:
    """Everything `locate_files` gathered for one issue, before the fusion."""

    clues: IssueClues
    files: FileMap
    kinds: dict[str, Evidence]
    timings_ms: dict[str, float]
    notices: list[str]
    index_phase: int
    generation: object
    lexical: tuple  # the lexical index and the issue's BM25 scores over every unit

    def ranks(self, depth: int = 100) -> dict[str, dict[str, int]]:
        """Each kind's file ranks by path, its first `depth` files (the tuning reads these)."""
        return ranks_by_path(self.kinds, self.files, depth)


def ranks_by_path(
    kinds: dict[str, Evidence], files: FileMap, depth: int | None = None
) -> dict[str, dict[str, int]]:
    """Each kind's file ranks keyed by path, as `rank_files` fuses them (all, or the first
    `depth`)."""
    return {
        kind: {files.paths[f]: r for f, r in found.ranks().items() if depth is None or r <= depth}
        for kind, found in kinds.items()
    }


def gather_evidence(
    *,
    repository: Repository,
    issue: str,
    filters: SearchFilters | None = None,
    phase: int | None = None,
    mode: str = "fast",
    weights: dict[str, float] | None = None,
) -> IssueEvidence:
    """Read the issue and gather every kind of evidence for every file; in full mode also what
    an LLM names as suspects (`agents.suspects`); last, the imports of the files the other
    kinds (fused by `weights`) rank first."""
    if not issue.strip():
        raise SearchError("the issue is empty")
    limit = search_config()["MAX_ISSUE_CHARS"]
    if len(issue) > limit:
        raise SearchError(f"the issue is longer than {limit:,} characters (it has {len(issue):,})")
    generation = active_generation(repository=repository)
    if generation is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    timings: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = round((now - since) * 1000, 2)
        return now

    clues = read_issue(issue)
    mark = lap("read", mark)
    filters = filters or SearchFilters()
    retriever = Retriever(
        repository=repository, generation=generation, filters=filters, k=50, phase=phase
    )
    ctx = retriever.streams
    files = file_map(generation)
    kinds: dict[str, Evidence] = {}
    kinds["frame"], kinds["path"] = E.frames_and_paths(clues, files)
    mark = lap("paths", mark)
    kinds["name"] = E.names(clues, files, generation)
    mark = lap("names", mark)
    index, scores = ctx.lexical(E.lexical_text(clues, issue))
    kinds["words"] = E.words(scores, index.unit_ids, files)
    mark = lap("words", mark)
    kinds["message"] = E.messages(clues, ctx, files, index)
    mark = lap("messages", mark)
    kinds["title"] = E.sentence(
        clues.title, repository, filters, phase, files, "close to the title"
    )
    kinds["opening"] = E.sentence(
        E.opening(clues), repository, filters, phase, files, "close to the description"
    )
    mark = lap("title", mark)
    kinds["meaning"], kinds["code"] = E.meaning(clues, ctx, files, index)
    mark = lap("meaning", mark)
    kinds["place"] = E.place(clues, issue, files)
    mark = lap("place", mark)
    notices: list[str] = []
    if mode == "full":
        kinds["suspect"] = E.suspects(issue, files, repository, generation, filters, phase, notices)
        mark = lap("suspects", mark)
    kinds["imported"], kinds["importers"] = _import_evidence(
        clues, files, kinds, generation, weights or LOCATE_WEIGHTS
    )
    lap("imports", mark)
    timings.update({f"stream_{k}": v for k, v in ctx.timings_ms.items()})
    from search.services import say_phase

    phase_note = SearchResponse(query="", mode="fast", mode_used="fast", results=[])
    say_phase(generation, retriever, phase_note)
    return IssueEvidence(
        clues,
        files,
        kinds,
        timings,
        notices + phase_note.notices,
        phase_note.index_phase,
        generation,
        (index, scores),
    )


def _import_evidence(
    clues, files: FileMap, kinds, generation, weights
) -> tuple[Evidence, Evidence]:
    ranked = rank_files(
        ranks_by_path(kinds, files),
        weights,
        about_tests=is_about_tests(clues),
        about_docs=is_about_docs(clues),
    )
    likeliest = [(files.index_of_path[path], score) for path, score in ranked[:IMPORT_SOURCES]]
    return E.imports(likeliest, import_graph(generation, files), files)


def rank_files(
    evidence: dict[str, dict[str, int]],
    weights: dict[str, float],
    *,
    about_tests: bool = False,
    about_docs: bool = False,
) -> list[tuple[str, float]]:
    """Files by fused evidence: each kind's ranks (path -> rank) weighted and added up by
    reciprocal rank, then weighed by what the file is (`file_factor`)."""
    fused: dict[str, float] = defaultdict(float)
    for kind, ranks in evidence.items():
        weight = weights.get(kind, 0.0)
        if weight > 0:
            for path, rank in ranks.items():
                fused[path] += weight / (RRF_K + rank)
    for path in fused:
        fused[path] *= file_factor(path, about_tests=about_tests, about_docs=about_docs)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def file_factor(path: str, *, about_tests: bool, about_docs: bool) -> float:
    from indexing.languages import language_for_path

    if path.startswith((".github/", ".gitlab/")):
        return HOST_FACTOR
    factor = 1.0
    if not about_tests and is_test_path(path):
        factor *= TEST_FACTOR
    if not about_docs and language_for_path(path) is None:
        factor *= PROSE_FACTOR  # no code language: documentation or configuration
    if is_auxiliary_path(path):
        factor *= AUXILIARY_FACTOR
    return factor


def is_about_tests(clues: IssueClues) -> bool:
    return bool(re.search(r"\btests?\b", clues.title, re.I))


def is_about_docs(clues: IssueClues) -> bool:
    return mentions_setup(clues.title)


def locate_files(
    *,
    repository: Repository,
    issue: str,
    k: int = 10,
    filters: SearchFilters | None = None,
    phase: int | None = None,
    weights: dict[str, float] | None = None,
    mode: str = "fast",
) -> LocateResponse:
    """The files of the repository to read (and most likely change) for `issue`, best first,
    each with why it came and its best units; `mode="full"` adds an LLM's suspects."""
    started = time.perf_counter()
    filters = filters or SearchFilters()
    found = gather_evidence(
        repository=repository, issue=issue, filters=filters, phase=phase, mode=mode, weights=weights
    )
    files = found.files
    ranked = rank_files(
        found.ranks(depth=len(files.paths)),
        weights or LOCATE_WEIGHTS,
        about_tests=is_about_tests(found.clues),
        about_docs=is_about_docs(found.clues),
    )
    top = [
        (files.index_of_path[path], score)
        for path, score in ranked
        if _allowed(files, files.index_of_path[path], filters)
    ][:k]
    index, scores = found.lexical
    located = _located(top, found.kinds, files, found.generation, index, scores, repository)
    timings = found.timings_ms | {"total": round((time.perf_counter() - started) * 1000, 2)}
    return LocateResponse(located, found.clues, timings, found.notices, found.index_phase)


def _allowed(files: FileMap, file: int, filters: SearchFilters) -> bool:
    """Path, language and tests filter files (a locate request takes no kind filter)."""
    return not filters.active or filters.allows(files.paths[file], "", files.languages[file])


_SAID_ORDER = (
    "suspect",
    "frame",
    "path",
    "message",
    "name",
    "title",
    "opening",
    "code",
    "meaning",
    "place",
    "imported",
    "importers",
    "words",
)


def _located(top, evidence, files: FileMap, generation, index, scores, repository):
    """The top files with their reasons and best units: those that carried evidence, else
    the file's best by the issue's words."""
    positions = index.positions
    located = []
    for rank, (file, score) in enumerate(top, start=1):
        kinds = [k for k in _SAID_ORDER if k in evidence]
        reasons = [evidence[k].said[file] for k in kinds if file in evidence[k].said]
        if file in evidence["words"].scores:
            reasons.append("shares words" if reasons else "shares the issue's words")
        unit_ids: list[int] = []
        for kind in kinds:
            for unit in evidence[kind].units.get(file, []):
                if unit not in unit_ids:
                    unit_ids.append(unit)
        if not unit_ids:
            own = np.flatnonzero(files.file_of_position == file)
            best = own[np.argsort(-scores[own], kind="stable")][:2] if len(scores) else own[:2]
            unit_ids = [int(index.unit_ids[p]) for p in best]
        units = generation_units(generation, unit_ids[:6])
        results = [
            SearchResult(
                n,
                units[u],
                float(scores[positions[u]]) if u in positions else 0.0,
                {"issue": rank},
                repository=repository.name,
            )
            for n, u in enumerate((u for u in unit_ids if u in units), start=1)
        ][:3]
        located.append(
            LocatedFile(rank, files.paths[file], round(score, 6), reasons, results, repository.name)
        )
    return located


def clue_summary(clues: IssueClues) -> str:
    """What the issue gave to search with, in words: "2 traceback frames, 14 names"."""
    from reporift.words import plural

    parts = [
        plural(len(clues.frames), "traceback frame"),
        plural(len(clues.paths), "path"),
        plural(len(clues.names), "name"),
        plural(len(clues.messages), "message"),
        plural(len(clues.code_blocks), "code block"),
    ]
    return ", ".join(p for p in parts if not p.startswith("0 "))


def issue_search(
    *,
    repository: Repository,
    issue: str,
    k: int,
    filters: SearchFilters | None = None,
    phase: int | None = None,
    mode: str = "fast",
) -> SearchResponse:
    """A search whose query is an issue: the units of the files `locate_files` ranks, the best
    file's first, a file's own units in the order their evidence came."""

    located = locate_files(
        repository=repository, issue=issue, k=max(k, 10), filters=filters, phase=phase, mode=mode
    )
    response = SearchResponse(query=issue, mode=mode, mode_used=mode, results=[])
    response.notices = [
        "read as an issue ("
        + (clue_summary(located.clues) or "prose only")
        + "): the results are the units of the files it points to, the likeliest file first",
        *located.notices,
    ]
    response.index_phase = located.index_phase
    response.ordered_by = "issue"
    results: list[SearchResult] = []
    for file in located.files:
        for n, result in enumerate(file.units[:2]):
            result.reason = "; ".join(file.reasons) if n == 0 else f"in {file.path}"
            result.comparable = file.score
            result.score = file.score
            results.append(result)
    for rank, result in enumerate(results[:k], start=1):
        result.rank = rank
    response.results = results[:k]
    response.candidates = len(located.files)
    response.timings_ms = located.timings_ms
    return response
