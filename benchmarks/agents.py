"""Latency of the LLM stages: query augmentation (CrewAI research agent, and the same prompt as
one completion), code generation, and listwise reranking of 15 candidates. Embedded SmolLM2 by
default; with OPENAI_BASE_URL set, the configured endpoint too. Cache off: every call is real.

    python -m benchmarks.agents [--queries 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from benchmarks.common import machine_line, package_dir, setup_django, write_section

QUERIES = [
    "retry a failed http request",
    "parse cookies from a response header",
    "check whether a url should bypass the proxy",
    "encode a dictionary as url query parameters",
    "guess the character encoding of a response body",
    "merge session settings with request settings",
]


def measure(label: str, base_url: str, model: str, api_key: str, queries: list[str], texts):
    from agents.augment import CrewAIResearchAugmenter, PromptAugmenter
    from agents.codegen import generate_code
    from agents.llm import OpenAICompatibleClient
    from agents.rerank import Candidate, LLMReranker, PointwiseReranker

    client = OpenAICompatibleClient(
        base_url=base_url,
        model=model,
        api_key=api_key,
        timeout_s=120,
        max_retries=0,
        use_cache=False,
    )
    crew = CrewAIResearchAugmenter(base_url=base_url, model=model, api_key=api_key, budget_s=120)
    crew.augment("warm up", search_docs=lambda q: [])  # CrewAI's import and first call
    prompt = PromptAugmenter(client=client)
    from agents.backends import model_settings

    choices = model_settings(model)
    kind = PointwiseReranker if choices["RERANKER"] == "pointwise" else LLMReranker
    reranker = kind(
        client=client,
        weight=choices["RERANK_WEIGHT"],
        max_candidates=choices["RERANK_CANDIDATES"],
        candidate_chars=choices["RERANK_CHARS"],
    )
    timings: dict[str, list[float]] = {k: [] for k in ("crewai", "prompt", "codegen", "rerank")}
    failures: dict[str, int] = dict.fromkeys(timings, 0)
    for i, query in enumerate(queries):
        docs = lambda q: texts[:3]  # noqa: E731
        for name, augmenter in (("crewai", crew), ("prompt", prompt)):
            start = time.perf_counter()
            result = augmenter.augment(f"{query} ({i})", search_docs=docs)  # defeats the cache
            timings[name].append(time.perf_counter() - start)
            failures[name] += bool(result.error)
        start = time.perf_counter()
        generated = generate_code(query, client=client, style=choices["CODEGEN"])
        timings["codegen"].append(time.perf_counter() - start)
        failures["codegen"] += bool(generated.dropped_reason)
        candidates = [
            Candidate(j, t) for j, t in enumerate(texts[i : i + choices["RERANK_CANDIDATES"]])
        ]
        start = time.perf_counter()
        ranked = reranker.rerank(query, candidates)
        timings["rerank"].append(time.perf_counter() - start)
        failures["rerank"] += bool(ranked.error)
    rows = []
    for name, values in timings.items():
        rows.append(
            f"| {label} | {name} | {statistics.median(values):.1f} s | {max(values):.1f} s "
            f"| {failures[name]}/{len(values)} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=5)
    args = parser.parse_args()
    setup_django()
    from agents.local_model import embedded_server
    from indexing.parsing import parse_source
    from indexing.sources import iter_python_files

    root = package_dir("requests")
    texts = [
        u.code[:600]
        for e in iter_python_files(root, max_file_bytes=2**21, warnings=[])
        for u in parse_source(e.absolute.read_bytes()).units
        if u.kind != "class"
    ]
    queries = QUERIES[: args.queries]
    start = time.perf_counter()
    server = embedded_server()
    startup = time.perf_counter() - start
    from django.conf import settings

    threads = settings.REPORIFT["LLM"]["THREADS"]
    rows = measure(
        f"embedded {server.model_alias} ({threads} thread{'s' if threads > 1 else ''})",
        server.base_url,
        server.model_alias,
        "",
        queries,
        texts,
    )
    endpoint = os.environ.get("OPENAI_BASE_URL")
    if endpoint:
        rows += measure(
            f"endpoint {os.environ.get('REPORIFT_LLM_MODEL', '')}",
            endpoint,
            os.environ["REPORIFT_LLM_MODEL"],
            os.environ.get("OPENAI_API_KEY", ""),
            queries,
            texts,
        )
    lines = [
        "## LLM stage latency",
        "",
        f"Machine: {machine_line()}. Command: `python -m benchmarks.agents --queries "
        f"{args.queries}` (part of `make bench`). {len(queries)} queries, cache off; each "
        "stage as the model's settings configure it (code style, reranker kind, number and "
        "length of its candidates: functions of `requests`). "
        f"Embedded server start: {startup:.1f} s.",
        "",
        "| model | stage | median | max | failed (fell back) |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
        "crewai = the research agent (one or more LLM calls through CrewAI); prompt = the same "
        "instructions as one completion. A failed stage fell back as designed (query unchanged, "
        "code dropped, retrieval order kept)."
        + (
            ""
            if endpoint
            else " No external endpoint was configured for this run "
            "(set OPENAI_BASE_URL, REPORIFT_LLM_MODEL and OPENAI_API_KEY to measure one)."
        ),
    ]
    write_section("agents", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
