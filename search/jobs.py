"""Full-mode searches from the web page run in the background, so the page can show their
stages' progress instead of hanging for half a minute: the page polls the job (htmx) until its
results are there.

A job's state lives in Django's cache (shared through Redis when configured), keyed by an
unguessable id and tied to the caller who started it; it expires after `JOB_TTL_S`.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.db import close_old_connections, connections
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)
JOB_TTL_S = 600
# Stages a full-mode search may go through, in order, as the page names them.
STAGE_LABELS = {
    "augment": "research agent (augmented query)",
    "codegen": "code generation",
    "rerank": "LLM reranking",
}


@dataclass(frozen=True)
class SearchJobRequest:
    repository_id: int
    query: str
    k: int
    mode: str
    path: str
    kinds: tuple[str, ...]
    exclude_tests: bool
    languages: tuple[str, ...] = ()


def _key(job_id: str) -> str:
    return f"search-job:{job_id}"


def job_owner(user, address: str) -> str:
    return f"user:{user.pk}" if user is not None and user.is_authenticated else f"addr:{address}"


def start_search_job(*, request: SearchJobRequest, owner: str) -> str:
    job_id = uuid.uuid4().hex
    cache.set(
        _key(job_id),
        {"owner": owner, "stages": [], "done": False, "html": "", "started": time.time()},
        JOB_TTL_S,
    )
    threading.Thread(
        target=_run, args=(job_id, request), name=f"search-job-{job_id[:8]}", daemon=True
    ).start()
    return job_id


def job_state(*, job_id: str, owner: str) -> dict | None:
    """The job's state, or None when it is unknown, expired or someone else's."""
    state = cache.get(_key(job_id))
    if state is None or state["owner"] != owner:
        return None
    return state


def _update(job_id: str, **changes) -> None:
    state = cache.get(_key(job_id)) or {}
    state.update(changes)
    cache.set(_key(job_id), state, JOB_TTL_S)


def _run(job_id: str, job: SearchJobRequest) -> None:
    from indexing.models import Repository
    from search.answer import answer
    from search.errors import search_unavailable_message
    from search.filters import SearchFilters
    from search.presenters import result_for_page, stage_timings
    from search.services import SearchError

    stages: list[dict] = []
    started: dict[str, float] = {}

    def progress(stage: str, state: str) -> None:
        label = STAGE_LABELS.get(stage, stage)
        if state == "running":
            started[stage] = time.perf_counter()
            stages.append({"name": label, "state": "running", "ms": None})
        else:
            ms = round((time.perf_counter() - started.get(stage, time.perf_counter())) * 1000)
            for item in stages:
                if item["name"] == label and item["state"] == "running":
                    item.update(state=state, ms=ms)
        _update(job_id, stages=stages)

    close_old_connections()
    # A full-mode search ran for a caller allowed to spend the LLM: examples are open to it too.
    context: dict = {"error": "", "response": None, "results": [], "llm_open": True}
    try:
        response = answer(
            repository=Repository.objects.get(pk=job.repository_id),
            query=job.query,
            k=job.k,
            mode=job.mode,
            filters=SearchFilters(
                path=job.path,
                kinds=job.kinds,
                exclude_tests=job.exclude_tests,
                languages=job.languages,
            ),
            progress=progress,
        )
        context.update(
            response=response,
            results=[result_for_page(r, response.query) for r in response.results],
            stage_timings=stage_timings(response),
        )
    except SearchError as exc:
        context["error"] = str(exc)
    except Exception as exc:  # the store or the model is down: say so on the page
        logger.exception("full-mode search job failed")
        context["error"] = search_unavailable_message(exc)
    finally:
        connections.close_all()
    _update(
        job_id, stages=stages, done=True, html=render_to_string("search/_results.html", context)
    )
