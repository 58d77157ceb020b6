"""The kinds of evidence `search.locate` gathers for an issue, each a function of the issue's
clues and the generation's files: traceback frames and path mentions resolved against the
files, the definitions of the names it uses, code that says its messages, BM25 over every unit
added up per file, fast mode's ranking of its title and opening sentences, its prose's and code
blocks' vectors, its words in file paths, and (full mode) an LLM's suspects. Each returns an
`Evidence`: scores per file index, what to say of each file, the units that carried it.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from indexing.models import CodeUnit
from indexing.unit_cache import generation_units
from search import streams as S
from search.file_map import FileMap
from search.filters import SearchFilters
from search.issue_text import IssueClues
from search.name_index import name_index
from search.ranking.structure import normal_name
from search.retrieval import search_config

MAX_NAMES = 40
# What a file's fused score is worth by what the file is: a fix changes code. A test file
# (unless the issue is about tests), documentation or configuration (unless it asks about
# docs or setup), a benchmark, example or generated copy count less; a project's own issue
# and pull-request templates share every issue's headings and are never the answer.

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
class Evidence:
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


def frames_and_paths(clues: IssueClues, files: FileMap) -> tuple[Evidence, Evidence]:
    frames, paths = Evidence(), Evidence()
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


def names(clues: IssueClues, files: FileMap, generation) -> Evidence:
    """The files that define the issue's names (in memory, `search.name_index`): a name in
    code counts twice a name in prose, and a name defined in many files counts less."""
    evidence = Evidence()
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


def lexical_text(clues: IssueClues, issue: str) -> str:
    """What BM25 reads of the issue: its title twice (it says in a line what the rest
    explains), its prose, its names and messages; not its traceback's paths nor its template."""
    return "\n".join(
        [clues.title, clues.title, clues.prose, " ".join(clues.names), *clues.messages]
    )


def words(scores: np.ndarray, unit_ids: np.ndarray, files: FileMap) -> Evidence:
    """BM25 per file: its best unit, then the next best ones at a falling rate."""
    evidence = Evidence()
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


def messages(clues: IssueClues, ctx: S.StreamContext, files: FileMap, index) -> Evidence:
    """Files whose code says an error message or quoted text of the issue."""
    evidence = Evidence()
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


def sentence(
    text: str, repository, filters: SearchFilters, phase, files: FileMap, said: str
) -> Evidence:
    """Fast mode's own ranking (streams and learned ranker) of a sentence of the issue."""
    from search.services import search

    evidence = Evidence()
    text = " ".join(text.split())[:300]
    if len(text) < 3:
        return evidence
    response = search(repository=repository, query=text, k=50, filters=filters, phase=phase)
    for rank, result in enumerate(response.results, start=1):
        file = files.index_of_path.get(result.unit.path)
        if file is not None and file not in evidence.scores:
            evidence.add(file, 1.0 / rank, said, result.unit.pk)
    return evidence


def suspects(
    issue, files: FileMap, repository, generation, filters, phase, notices: list[str]
) -> Evidence:
    """Where the LLM says the fix goes: the files it names (resolved like the issue's own path
    mentions), the files defining the symbols it names, and fast mode's files for each concept;
    ranked in the order it named them. A model that is down or answers garbage is reported in
    the notices and leaves this evidence empty."""
    from agents.backends import model_settings
    from agents.errors import LLMError
    from agents.llm import configured_model, get_llm_client
    from agents.suspects import name_suspects

    evidence = Evidence()
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
    for n, unit in enumerate(name_index(generation).lookup(names, lambda name: [name])):
        file = files.index_of_path.get(unit.path)
        if file is not None:
            evidence.add(file, 0.8 / (1 + n), f"defines {unit.name}, which the LLM named", unit.pk)
    for concept in suspects.concepts:
        found = sentence(concept, repository, filters, phase, files, said)
        for file, score in found.scores.items():
            evidence.add(file, 0.5 * score, said)
    return evidence


def opening(clues: IssueClues) -> str:
    """The prose's first sentences after the title: what the reporter says first."""
    body = clues.prose[len(clues.title) :].strip() if clues.prose.startswith(clues.title) else ""
    sentences = re.split(r"(?<=[.!?])\s+", body)
    opening = ""
    for sentence in sentences:
        if len(opening) + len(sentence) > 300:
            break
        opening = f"{opening} {sentence}".strip()
    return opening or body[:300]


def meaning(
    clues: IssueClues, ctx: S.StreamContext, files: FileMap, index
) -> tuple[Evidence, Evidence]:
    """The prose's vector and each code block's against the units' code vectors."""
    meaning, code = Evidence(), Evidence()
    prose = clues.prose[:1000]
    if prose:
        result = S.code_stream(ctx, prose)
        _by_best_unit(meaning, result.hits, files, ctx, "close in meaning to the issue")
    for block in clues.code_blocks[:2]:
        result = S.generated_code_stream(ctx, block[:2000])
        _by_best_unit(code, result.hits, files, ctx, "like the issue's code")
    return meaning, code


def _by_best_unit(
    evidence: Evidence, hits: list[tuple[int, float]], files: FileMap, ctx, text: str
) -> None:
    units = generation_units(ctx.generation, ctx.lexical_index().holds(u for u, _ in hits))
    for unit_id, score in hits:
        unit = units.get(unit_id)
        if unit is None:
            continue
        file = files.index_of_path.get(unit.path)
        if file is not None and file not in evidence.scores:
            evidence.add(file, max(score, 1e-6), text, unit_id)


def place(clues: IssueClues, issue: str, files: FileMap) -> Evidence:
    """The issue's words in a file's folders and name (`utc` plugin -> plugin/utc/index.js),
    rare ones counting most."""
    evidence = Evidence()
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


def imports(likeliest: list[tuple[int, float]], graph, files: FileMap) -> tuple[Evidence, Evidence]:
    """The files the likeliest files (the other kinds fused: file, score) import, and the files
    that import them: a fix often lands in what the code an issue points at calls, and a
    module's tests and callers import it. A neighbour of several likely files gathers more.
    Each link counts by both ends' degrees (1 / sqrt(d1 d2)): a file importing everything
    passes each import little, and a hub (an `index.js`, a crate's `lib.rs`, a package's
    `__init__.py`) that everything imports, or that imports everything, gains little from
    each."""
    imported, importers = Evidence(), Evidence()
    for file, score in likeliest:
        name = files.paths[file].rsplit("/", 1)[-1]
        for kind, others, back, text in (
            (imported, graph.imports.get(file, ()), graph.imported_by, f"imported by {name}"),
            (importers, graph.imported_by.get(file, ()), graph.imports, f"imports {name}"),
        ):
            if not others:
                continue
            share = score / math.sqrt(len(others))
            for other in others:
                kind.add(other, share / math.sqrt(len(back.get(other, ())) or 1), text)
    return imported, importers
