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
- place: the issue's words in a file's folders and name.

Each kind ranks the files it has evidence for; the ranks are fused by weighted reciprocal rank
(`LOCATE_WEIGHTS`), so a kind that locates well (a frame inside the repository) outweighs one
that narrates (a word), and each file says which evidence brought it ("traceback frame
line 2495 in to_json_dict", "defines `saferepr`", "says the error message").
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from indexing.models import CodeUnit, Repository
from indexing.selectors import active_generation
from indexing.unit_cache import generation_units
from search import streams as S
from search.file_map import FileMap, file_map
from search.filters import SearchFilters, is_auxiliary_path, is_test_path
from search.issue_text import IssueClues, read_issue
from search.name_index import name_index
from search.ranking.structure import asks_about_docs, normal_name
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
    # Full mode: what the LLM names (measured on the issue dev set; docs/BENCHMARKS.md).
    "suspect": 1.0,
}
RRF_K = 4
MAX_NAMES = 40
# What a file's fused score is worth by what the file is: a fix changes code. A test file
# (unless the issue is about tests), documentation or configuration (unless it asks about
# docs or setup), a benchmark, example or generated copy count less; a project's own issue
# and pull-request templates share every issue's headings and are never the answer.
TEST_FACTOR = 0.5
PROSE_FACTOR = 0.5
AUXILIARY_FACTOR = 0.5
HOST_FACTOR = 0.1  # `.github/`, `.gitlab/`: templates and workflows
_GENERIC_PARTS = frozenset(
    [
        "src",
        "lib",
        "app",
        "main",
        "index",
        "init",
        "__init__",
        "mod",
        "core",
        "utils",
        "util",
        "common",
        "base",
        "test",
        "tests",
        "internal",
        "pkg",
        "cmd",
        "include",
        "source",
        "sources",
        "java",
        "kotlin",
        "scala",
        "python",
    ]
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


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
class _Evidence:
    """One kind's scores per file index, and what to say of each file."""

    scores: dict[int, float] = field(default_factory=dict)
    said: dict[int, str] = field(default_factory=dict)
    units: dict[int, list[int]] = field(default_factory=dict)  # the units that carried it

    def add(self, file: int, score: float, text: str = "", unit: int | None = None) -> None:
        self.scores[file] = self.scores.get(file, 0.0) + score
        if text and file not in self.said:
            self.said[file] = text
        if unit is not None:
            self.units.setdefault(file, [])
            if unit not in self.units[file]:
                self.units[file].append(unit)

    def ranks(self) -> dict[int, int]:
        ordered = sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))
        return {file: rank for rank, (file, score) in enumerate(ordered, start=1) if score > 0}


@dataclass
class IssueEvidence:
    """Everything `locate_files` gathered for one issue, before the fusion."""

    clues: IssueClues
    files: FileMap
    kinds: dict[str, _Evidence]
    timings_ms: dict[str, float]
    notices: list[str]
    index_phase: int
    generation: object
    lexical: tuple  # the lexical index and the issue's BM25 scores over every unit

    def ranks(self, depth: int = 100) -> dict[str, dict[str, int]]:
        """Each kind's file ranks by path, its first `depth` files (the tuning reads these)."""
        return {
            kind: {self.files.paths[f]: r for f, r in found.ranks().items() if r <= depth}
            for kind, found in self.kinds.items()
        }


def gather_evidence(
    *,
    repository: Repository,
    issue: str,
    filters: SearchFilters | None = None,
    phase: int | None = None,
    mode: str = "fast",
) -> IssueEvidence:
    """Read the issue and gather every kind of evidence for every file; in full mode also what
    an LLM names as suspects (`agents.suspects`)."""
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
    kinds: dict[str, _Evidence] = {}
    kinds["frame"], kinds["path"] = _frames_and_paths(clues, files)
    mark = lap("paths", mark)
    kinds["name"] = _names(clues, files, generation)
    mark = lap("names", mark)
    index, scores = ctx.lexical(_lexical_text(clues, issue))
    kinds["words"] = _words(scores, index.unit_ids, files)
    mark = lap("words", mark)
    kinds["message"] = _messages(clues, ctx, files, index)
    mark = lap("messages", mark)
    kinds["title"] = _title(clues.title, repository, filters, phase, files, "close to the title")
    kinds["opening"] = _title(
        _opening(clues), repository, filters, phase, files, "close to the description"
    )
    mark = lap("title", mark)
    kinds["meaning"], kinds["code"] = _meaning(clues, ctx, files, index)
    mark = lap("meaning", mark)
    kinds["place"] = _place(clues, issue, files)
    mark = lap("place", mark)
    notices: list[str] = []
    if mode == "full":
        kinds["suspect"] = _suspects(issue, files, repository, filters, phase, notices)
        lap("suspects", mark)
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
    return asks_about_docs(clues.title)


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
        repository=repository, issue=issue, filters=filters, phase=phase, mode=mode
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
    """Files are ranked, not units: a kind filter does not apply; path, language and tests do."""
    if not filters.active:
        return True
    kind = filters.kinds[0] if filters.kinds else "function"
    return filters.allows(files.paths[file], kind, files.languages[file])


def _frames_and_paths(clues: IssueClues, files: FileMap) -> tuple[_Evidence, _Evidence]:
    frames, paths = _Evidence(), _Evidence()
    in_repo = []
    for frame in clues.frames:
        mention = frame.path
        if frame.qualifier:
            # Java: com.pkg.Class + Class.java -> com/pkg/Class.java
            package = frame.qualifier.rsplit(".", 1)[0] if "." in frame.qualifier else ""
            mention = "/".join([*package.split("."), frame.path]) if package else frame.path
        resolved = files.resolve(mention)
        if resolved:
            in_repo.append((frame, resolved))
    for frame, resolved in in_repo:
        # Every frame inside the repository counts alike: the fix lies in the frame that
        # raised as often as in one of its callers (measured on the issue dev set).
        where = f"line {frame.line}" + (f" in {frame.function}" if frame.function else "")
        for index, shared in resolved:
            frames.add(index, shared / len(resolved), f"traceback frame ({where})")
    mentions = list(clues.paths)
    # A dotted module name (`pvlib.irradiance.reindl`, `com.pkg.Class`) names a path too.
    for name in clues.names[:MAX_NAMES]:
        parts = normal_name(name).split(".")
        if len(parts) >= 2:
            for cut in range(len(parts), 1, -1):
                mentions.append("/".join(parts[:cut]))
    seen: set[int] = set()
    for order, mention in enumerate(mentions):
        resolved = _resolve_loose(files, mention)
        for index, shared in resolved:
            if index in seen:
                continue
            seen.add(index)
            strength = shared / len(resolved) / (1 + 0.05 * order)
            paths.add(index, strength, f"mentioned as {mention}")
    return frames, paths


def _resolve_loose(files: FileMap, mention: str) -> list[tuple[int, int]]:
    """A mention with an extension resolves by its file name; a module path without one
    (`pvlib/irradiance`) by any file whose path without its extension ends with it."""
    if "." in mention.rsplit("/", 1)[-1]:
        found = files.resolve(mention)
        # A bare file name that many files share locates nothing.
        return found if found and (found[0][1] > 1 or len(found) <= 3) else []
    stem = mention.rsplit("/", 1)[-1]
    if len(mention.split("/")) < 2 or stem.lower() in _GENERIC_PARTS:
        return []
    out = []
    for index, path in enumerate(files.paths):
        bare = path.rsplit(".", 1)[0]
        if bare == mention or bare.endswith("/" + mention):
            out.append((index, mention.count("/") + 1))
    return out if len(out) <= 3 else []


def _names(clues: IssueClues, files: FileMap, generation) -> _Evidence:
    """The files that define the issue's names (in memory, `search.name_index`): a name in
    code counts twice a name in prose, and a name defined in many files counts less."""
    evidence = _Evidence()
    wanted: dict[str, float] = {}
    dotted: dict[str, str] = {}
    for name in clues.names[:MAX_NAMES]:
        normal = normal_name(name)
        last = normal.split(".")[-1].strip("$")
        if len(last) < 3:
            continue
        weight = (2.0 if name in clues.code_names else 1.0) * (
            1 + math.log(clues.code_names[name] + clues.prose_names[name])
        )
        if weight > wanted.get(last, 0):
            wanted[last] = weight
            if "." in normal:
                dotted[last] = normal
    if not wanted:
        return evidence
    spellings = list(dict.fromkeys([*wanted, *(n.lower() for n in wanted)]))
    rows = [
        (unit.pk, unit.name, unit.qualname, unit.path)
        for unit in name_index(generation).lookup(spellings, lambda name: [name])
        if unit.kind != CodeUnit.Kind.SECTION and unit.name in spellings
    ]
    defining: dict[str, set[str]] = defaultdict(set)
    for _, name, _, path in rows:
        defining[name].add(path)
    for pk, name, qualname, path in rows:
        file = files.index_of_path.get(path)
        if file is None:
            continue
        weight = wanted.get(name) or wanted.get(name.lower(), 0.0)
        spread = len(defining[name])
        exact = dotted.get(name)
        match = 1.0 if exact and normal_name(qualname).endswith(exact.split(".", 1)[-1]) else 0.6
        evidence.add(
            file, weight * match / math.sqrt(spread), f"defines {name}" if spread < 6 else "", pk
        )
    return evidence


def _lexical_text(clues: IssueClues, issue: str) -> str:
    """What BM25 reads of the issue: its title twice (it says in a line what the rest
    explains), its prose, its names and messages; not its traceback's paths nor its template."""
    return "\n".join(
        [clues.title, clues.title, clues.prose, " ".join(clues.names), *clues.messages]
    )


def _words(scores: np.ndarray, unit_ids: np.ndarray, files: FileMap) -> _Evidence:
    """BM25 per file: its best unit, then the next best ones at a falling rate."""
    evidence = _Evidence()
    if not len(scores):
        return evidence
    top = np.argsort(-scores)[: min(len(scores), 2000)]
    per_file: dict[int, list[float]] = defaultdict(list)
    best_unit: dict[int, int] = {}
    for position in top:
        score = float(scores[position])
        if score <= 0:
            break
        file = int(files.file_of_position[position])
        if file < 0:
            continue
        per_file[file].append(score)
        best_unit.setdefault(file, int(unit_ids[position]))
    for file, values in per_file.items():
        total = sum(v / (1 + n) for n, v in enumerate(values[:5]))
        evidence.add(file, total, "", best_unit[file])
    return evidence


def _messages(clues: IssueClues, ctx: S.StreamContext, files: FileMap, index) -> _Evidence:
    """Files whose code says an error message or quoted text of the issue."""
    evidence = _Evidence()
    for message in clues.messages[:8]:
        pieces = _static_pieces(message)
        if not pieces:
            continue
        candidates = index.search(" ".join(pieces), n=40)
        units = generation_units(ctx.generation, [u for u, _ in candidates])
        for unit_id, _ in candidates:
            unit = units.get(unit_id)
            if unit is None:
                continue
            code = unit.code.lower()
            if any(piece.lower() in code for piece in pieces):
                file = files.index_of_path.get(unit.path)
                if file is not None:
                    short = message if len(message) <= 60 else message[:57] + "..."
                    evidence.add(file, 1.0, f"says the message “{short}”", unit_id)
    return evidence


def _static_pieces(message: str) -> list[str]:
    """The parts of a message a program writes literally: runs of three or more words between
    the values it fills in (numbers, quoted names, paths)."""
    pieces = re.split(r"[\"'`{}()\[\]<>:=]|\b\d[\w.]*|\S+[/\\]\S+", message)
    return [p.strip() for p in pieces if len(p.split()) >= 3 and len(p.strip()) >= 12]


def _title(
    text: str, repository, filters: SearchFilters, phase, files: FileMap, said: str
) -> _Evidence:
    """Fast mode's own ranking (streams and learned ranker) of a sentence of the issue."""
    from search.services import search

    evidence = _Evidence()
    text = " ".join(text.split())[:300]
    if len(text) < 3:
        return evidence
    response = search(repository=repository, query=text, k=50, filters=filters, phase=phase)
    for rank, result in enumerate(response.results, start=1):
        file = files.index_of_path.get(result.unit.path)
        if file is not None and file not in evidence.scores:
            evidence.add(file, 1.0 / rank, said, result.unit.pk)
    return evidence


def _suspects(issue, files: FileMap, repository, filters, phase, notices: list[str]) -> _Evidence:
    """Where the LLM says the fix goes: the files it names (resolved like the issue's own path
    mentions), the files defining the symbols it names, and fast mode's files for each concept;
    ranked in the order it named them. A model that is down or answers garbage is reported in
    the notices and leaves this evidence empty."""
    from agents.backends import model_settings
    from agents.errors import LLMError
    from agents.llm import configured_model, get_llm_client
    from agents.suspects import name_suspects

    evidence = _Evidence()
    try:
        model = configured_model()
        forced = search_config().get("LOCATE_SUSPECTS_FORCED", False)
        if "suspects" not in model_settings(model)["STAGES"] and not forced:
            notices.append(
                f"the LLM's suspects are off for {model} (they did not help in measurements); "
                "located as in fast mode"
            )
            return evidence
        suspects = name_suspects(
            issue=issue,
            paths=files.paths,
            client=get_llm_client(),
            budget_s=search_config()["LOCATE_LLM_BUDGET_S"],
        )
    except LLMError as exc:
        notices.append(f"the LLM's suspects were not used: {exc}")
        return evidence
    said = f"named by the LLM ({suspects.model or 'LLM'})"
    notices.append(
        f"{suspects.model or 'the LLM'} named {len(suspects.files)} files, "
        f"{len(suspects.symbols)} symbols and {len(suspects.concepts)} concepts in "
        f"{suspects.latency_ms / 1000:.1f} s"
        + (" (it read the issue's first part; the search read all of it)" if suspects.cut else "")
    )
    weight = 1.0
    for mention in suspects.files:
        for index, shared in _resolve_loose(files, mention):
            evidence.add(index, weight * shared, said)
        weight *= 0.8
    names = [normal_name(s).split(".")[-1] for s in suspects.symbols]
    for n, unit in enumerate(
        name_index(active_generation(repository=repository)).lookup(names, lambda name: [name])
    ):
        file = files.index_of_path.get(unit.path)
        if file is not None:
            evidence.add(file, 0.8 / (1 + n), f"defines {unit.name}, which the LLM named", unit.pk)
    for concept in suspects.concepts:
        found = _title(concept, repository, filters, phase, files, said)
        for file, score in found.scores.items():
            evidence.add(file, 0.5 * score, said)
    return evidence


def _opening(clues: IssueClues) -> str:
    """The prose's first sentences after the title: what the reporter says first."""
    body = clues.prose[len(clues.title) :].strip() if clues.prose.startswith(clues.title) else ""
    sentences = re.split(r"(?<=[.!?])\s+", body)
    opening = ""
    for sentence in sentences:
        if len(opening) + len(sentence) > 300:
            break
        opening = f"{opening} {sentence}".strip()
    return opening or body[:300]


def _meaning(
    clues: IssueClues, ctx: S.StreamContext, files: FileMap, index
) -> tuple[_Evidence, _Evidence]:
    """The prose's vector and each code block's against the units' code vectors."""
    meaning, code = _Evidence(), _Evidence()
    prose = clues.prose[:1000]
    if prose:
        result = S.code_stream(ctx, prose)
        _by_best_unit(meaning, result.hits, files, ctx, "close in meaning to the issue")
    for block in clues.code_blocks[:2]:
        result = S.generated_code_stream(ctx, block[:2000])
        _by_best_unit(code, result.hits, files, ctx, "like the issue's code")
    return meaning, code


def _by_best_unit(
    evidence: _Evidence, hits: list[tuple[int, float]], files: FileMap, ctx, text: str
) -> None:
    units = generation_units(ctx.generation, ctx.lexical_index().holds(u for u, _ in hits))
    for unit_id, score in hits:
        unit = units.get(unit_id)
        if unit is None:
            continue
        file = files.index_of_path.get(unit.path)
        if file is not None and file not in evidence.scores:
            evidence.add(file, max(score, 1e-6), text, unit_id)


def _place(clues: IssueClues, issue: str, files: FileMap) -> _Evidence:
    """The issue's words in a file's folders and name (`utc` plugin -> plugin/utc/index.js),
    rare ones counting most."""
    evidence = _Evidence()
    words = {w.lower() for w in _WORD.findall(issue) if len(w) >= 3}
    words |= {w.lower() for n in clues.names for w in re.split(r"\W+", n) if len(w) >= 3}
    words -= _GENERIC_PARTS
    if not words:
        return evidence
    part_files: dict[str, list[int]] = defaultdict(list)
    for index, path in enumerate(files.paths):
        for part in re.split(r"[/._-]+", path.lower()):
            if part in words:
                part_files[part].append(index)
    total = len(files.paths) or 1
    for part, indexes in part_files.items():
        weight = math.log(1 + total / len(set(indexes)))
        for index in set(indexes):
            evidence.add(index, weight, f"its path names “{part}”")
    return evidence


# The evidence kinds in the order a reason names them: what locates before what narrates.
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
