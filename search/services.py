"""Search: run the streams of a mode, order their candidates, rerank in full mode, return units.

`fast` runs S1 (code vectors), S6 (header vectors) and S4 (BM25) with no LLM, and orders the
union of their candidates with the learned ranker (`search.ranking`). `full` adds the agents'
streams (augmented query S5, generated code S2, its component functions S3) and the LLM
reranker; when the LLM is down or answers garbage it answers like `fast` and says so in
`notices`. Without a usable ranker model, or when `stages` leaves it out, candidates are fused
by weighted reciprocal-rank fusion.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from indexing.models import CodeUnit, IndexRun, Repository
from indexing.selectors import active_generation
from reporift.words import plural
from search import streams as S
from search.file_map import file_map
from search.filters import SearchFilters, is_test_path  # noqa: F401  (re-exported)
from search.fusion import reciprocal_rank_fusion
from search.ranking.explain import stream_reason
from search.ranking.model import RankerUnavailable, get_ranker
from search.ranking.order import learned_order
from search.ranking.structure import Strengths, query_shape, shape_ranked
from search.results import SearchError, SearchResponse, SearchResult
from search.retrieval import Retriever, search_config

logger = logging.getLogger(__name__)
MODES = ("fast", "full")
FAST_STREAMS = ("S1", "S6", "S4", "S7")
# "structure": the repository's shape after the ranker (search.ranking.structure).
FAST_STAGES = (*FAST_STREAMS, "ranker", "structure")
LLM_STREAMS = ("S2", "S3", "S5")
ALL_STREAMS = ("S1", "S2", "S3", "S4", "S5", "S6", "S7")
# Full mode's stages: the streams, the learned ranker and the LLM reranker.
FULL_STAGES = (*ALL_STREAMS, "ranker", "structure", "rerank")


# Hears a slow stage's start and end: progress("augment", "running"), then ("augment", "done").
Progress = Callable[[str, str], None]


def _silent(stage: str, state: str) -> None:
    pass


def query_text(query: str) -> str:
    """The query as search reads it: a phrase or a name with its spaces collapsed; an issue (a
    bug report, a traceback, a log: several lines, or longer than a phrase) as it was written,
    its lines kept, since frames, code blocks and messages are read line by line
    (`search.issue_text`)."""
    config = search_config()
    short = " ".join(query.split())
    if not short:
        raise SearchError("the query is empty")
    text = query.strip()
    if len(text) > config["MAX_ISSUE_CHARS"]:
        raise SearchError(
            f"the query is longer than {config['MAX_ISSUE_CHARS']:,} characters (it has "
            f"{len(text):,}): paste the issue's first part, or its traceback and title"
        )
    lines = [line for line in text.splitlines() if line.strip()]
    if len(short) > config["MAX_QUERY_CHARS"] or len(lines) >= ISSUE_LINES:
        return text
    return short


# A query of this many lines was pasted, not typed: an issue, a traceback, a log.
ISSUE_LINES = 3


def is_issue(query: str) -> bool:
    """Read as an issue (`query_text` kept its lines)."""
    return "\n" in query or len(query) > search_config()["MAX_QUERY_CHARS"]


def _validate(query: str, mode: str, k: int) -> str:
    config = search_config()
    query = query_text(query)
    if mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}")
    if not 1 <= k <= config["MAX_K"]:
        raise SearchError(f"k must be between 1 and {config['MAX_K']}")
    return query


def say_phase(generation: IndexRun, retriever: Retriever, response: SearchResponse) -> None:
    """Between phase 1 and phase 2 the static tier's vectors answer: the response says so."""
    if (
        not generation.phase2_model
        or retriever.streams.embedder.model_id == generation.phase2_model
    ):
        return
    response.index_phase = 1
    Phase2 = IndexRun.Phase2
    if generation.phase2_status in (Phase2.PENDING, Phase2.RUNNING):
        response.notices.append(
            "answered from phase 1 of indexing (static vectors); the transformer's vectors are "
            f"being added ({generation.phase2_units_embedded} of "
            f"{plural(generation.phase2_units_total, 'unit')}), and searches use them when done"
        )
    else:
        reason = generation.phase2_error or generation.phase2_status
        response.notices.append(
            f"answered from phase 1 of indexing (static vectors); phase 2 did not run: {reason}"
        )


def search(
    *,
    repository: Repository,
    query: str,
    k: int = 10,
    mode: str = "fast",
    filters: SearchFilters | None = None,
    stages: tuple[str, ...] | None = None,
    progress: Progress | None = None,
    phase: int | None = None,
) -> SearchResponse:
    """Rank the units of the repository's active generation for `query`, best first.

    `stages` restricts which streams and rankers run (the evaluation harness ablates with it);
    `progress(stage, state)` hears each slow stage start ("running") and end ("done");
    `phase=1` answers with phase 1's static vectors even after phase 2 (the evaluation)."""
    query = _validate(query, mode, k)
    progress = progress or _silent
    generation = active_generation(repository=repository)
    if generation is None:
        raise SearchError(f"repository {repository.name!r} has no finished index yet")
    wanted = tuple(stages or (FULL_STAGES if mode == "full" else FAST_STAGES))
    started = time.perf_counter()
    response = SearchResponse(query=query, mode=mode, mode_used=mode, results=[])
    retriever = Retriever(
        repository=repository,
        generation=generation,
        filters=filters or SearchFilters(),
        k=k,
        phase=phase,
    )

    other_model = generation.embedder_model
    if other_model and other_model != retriever.streams.embedder.model_id:
        # Its vectors live under the other model's collections: the vector streams find
        # nothing rather than compare this model's query vector with another model's vectors.
        response.notices.append(
            f"this repository was indexed with another embedder ({other_model}); until it is "
            "re-indexed only the lexical stream finds its code"
        )
    say_phase(generation, retriever, response)
    query_streams = {
        "S1": S.code_stream,
        "S6": S.header_stream,
        "S4": S.lexical_stream,
        "S7": S.definitions_stream,
    }
    results = [
        stream(retriever.streams, query) for name, stream in query_streams.items() if name in wanted
    ]
    llm = None
    if mode == "full":
        from search.full_mode import run_llm_streams

        llm = run_llm_streams(
            query=query,
            retriever=retriever,
            wanted=wanted,
            explicit=stages is not None,
            progress=progress,
        )
        results += llm.results
        llm.apply_to(response)
    for result in results:
        response.timings_ms[result.name] = round(result.latency_ms, 2)
        if result.error:
            response.notices.append(f"stream {result.name} failed: {result.error}")

    ordered = _order(
        query,
        results,
        retriever,
        response,
        k,
        use_ranker="ranker" in wanted,
        use_structure="structure" in wanted,
    )
    if llm is not None and llm.rerank and response.mode_used == "full":
        from search.full_mode import rerank

        progress("rerank", "running")
        ordered = rerank(query=query, results=ordered, response=response)
        progress("rerank", "done")
    for rank, result in enumerate(ordered[:k], start=1):
        result.rank = rank
        result.repository = repository.name
    response.results = ordered[:k]
    response.timings_ms.update(retriever.timings_ms)
    response.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 2)
    return response


def _shaped(
    query: str,
    units: dict[int, CodeUnit],
    scored: list[tuple[int, float]],
    retriever: Retriever,
) -> tuple[list[tuple[int, float]], dict[int, str]]:
    """The learned order (standardised scores) adjusted by the repository's shape
    (search.ranking.structure), and what lifted each unit that was lifted, in words."""
    strengths = Strengths(**search_config()["STRUCTURE"])
    ranked = [(units[u], score) for u, score in scored]
    paths = mass = None
    if strengths.path_topic or strengths.lexical_file_mass:
        # Made once per generation beside the lexical index (the warm-up builds it).
        files = file_map(retriever.generation)
        paths = files.path_words if strengths.path_topic else None
        if strengths.lexical_file_mass and not query_shape(query).name:
            # The query's BM25 scores were computed for the lexical stream and the ranker.
            _, scores = retriever.streams.lexical(query)
            mass = files.added_up(scores, {unit.path for unit, _ in ranked})
    shaped = shape_ranked(query, ranked, strengths, paths=paths, lexical_mass=mass)
    lifted = {unit.pk: text for unit, _, text in shaped if text}
    return [(unit.pk, score) for unit, score, _ in shaped], lifted


@dataclass
class CandidatePool:
    units: dict[int, CodeUnit]  # every candidate, in first-found order
    rankings: dict[str, list[int]]  # stream -> its candidates, best first
    stream_ranks: dict[int, dict[str, int]]  # candidate -> stream -> 1-based rank


def gather_candidates(results: list[S.StreamResult], retriever: Retriever) -> CandidatePool:
    """The streams' hits that are units of the active generation passing the filters, each
    stream cut at its depth. The learned ranker is trained on exactly these pools."""
    resolved = retriever.resolve({unit_id for r in results for unit_id, _ in r.hits})
    rankings = {
        r.name: [u for u, _ in r.hits if u in resolved][: retriever.cap(r.name)] for r in results
    }
    stream_ranks: dict[int, dict[str, int]] = {}
    for name, ranking in rankings.items():
        for rank, unit_id in enumerate(ranking, start=1):
            stream_ranks.setdefault(unit_id, {})[name] = rank
    return CandidatePool({u: resolved[u] for u in stream_ranks}, rankings, stream_ranks)


def _order(
    query: str,
    results: list[S.StreamResult],
    retriever: Retriever,
    response: SearchResponse,
    k: int,
    *,
    use_ranker: bool,
    use_structure: bool = True,
) -> list[SearchResult]:
    """Every candidate the streams found, best first, as results."""
    config = search_config()
    start = time.perf_counter()
    pool = gather_candidates(results, retriever)
    units, rankings, stream_ranks = pool.units, pool.rankings, pool.stream_ranks
    response.timings_ms["resolve"] = round((time.perf_counter() - start) * 1000, 2)
    response.candidates = len(units)
    start = time.perf_counter()
    scored: list[tuple[int, float]] | None = None
    reasons: dict[int, str] = {}
    comparable: dict[int, float] = {}
    if use_ranker and stream_ranks:
        try:
            learned = learned_order(
                query=query,
                units=units,
                retriever=retriever,
                ranker=get_ranker(),
                code_weight=config["RANKER_CODE_WEIGHT"],
                explain_top=k,
            )
            scored, reasons, comparable = learned.ranked, learned.reasons, learned.raw
            response.ordered_by = "ranker"
            if use_structure:
                # On the ranker's standardised scores, before any fusion below changes scale.
                scored, lifted = _shaped(query, units, scored, retriever)
                reasons = {
                    u: "; ".join(filter(None, (lifted.get(u), reasons.get(u))))
                    for u in {*reasons, *lifted}
                }
            llm_rankings = {s: r for s, r in rankings.items() if s in LLM_STREAMS}
            if llm_rankings:
                # The ranker knows the query's streams only; full mode's own streams vote
                # on its order by weighted reciprocal-rank fusion (weights per stream).
                fused = reciprocal_rank_fusion(
                    {"ranker": [u for u, _ in scored], **llm_rankings},
                    weights=config["WEIGHTS"],
                    k=config["RRF_K"],
                )
                scored = [(hit.key, hit.score) for hit in fused]
                response.ordered_by = "ranker+llm-streams"
        except RankerUnavailable as exc:
            logger.warning("learned ranker unavailable: %s", exc)
            response.notices.append(f"ordered by stream fusion: {exc}")
    if scored is None:
        limit = max(config["CANDIDATES"] if response.mode == "full" else k, k)
        fused = reciprocal_rank_fusion(
            rankings, weights=config["WEIGHTS"], k=config["RRF_K"], limit=limit
        )
        scored = [(hit.key, hit.score) for hit in fused]
        response.ordered_by = "fusion"
    response.timings_ms["order"] = round((time.perf_counter() - start) * 1000, 2)
    # Results are made for what can be shown: the first k, or as many as full mode's reranker
    # may lift into them. The rest were ordered only to find these.
    shown = max(k, config["CANDIDATES"]) if response.mode == "full" else k
    return [
        SearchResult(
            0,
            units[u],
            score,
            stream_ranks[u],
            reason=reasons.get(u) or stream_reason(stream_ranks[u]),
            comparable=comparable.get(u, score),
        )
        for u, score in scored[:shown]
    ]
