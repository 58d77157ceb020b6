"""What full mode will do with the configured model, and about how long it takes, said before it
runs. Read from settings and from the calls already logged; nothing is started."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from agents.backends import model_settings
from agents.errors import LLMError
from agents.models import LLMCall

STAGE_WORDS = {  # in the order full mode runs them
    "S5": "expands the query",
    "S2": "writes code that would answer it",
    "S3": "splits that code into functions",
}
_RECENT_CALLS = 50  # enough for a stable median, few enough to follow a change of machine
_ENOUGH_CALLS = 10


@dataclass(frozen=True)
class FullModePlan:
    model: str
    summary: str  # one sentence for the search page
    expected_s: float | None  # about how long a full-mode search takes here; None if unknown


def full_mode_plan() -> FullModePlan:
    from agents.llm import configured_model

    try:
        model = configured_model()
    except LLMError as exc:
        return FullModePlan("", f"Full mode is unavailable: {exc}. It answers as fast mode.", None)
    choices = model_settings(model)
    stages = list(choices["STAGES"])
    if not stages:
        return FullModePlan(
            model,
            f"Full mode with {model}: no LLM stage measured better than fast mode with this "
            "model, so it answers as fast mode does.",
            None,
        )
    doing = [words for stage, words in STAGE_WORDS.items() if stage in stages]
    if "rerank" in stages:
        n = choices["RERANK_CANDIDATES"]
        doing.append(
            f"judges the top {n} results one by one and re-orders them"
            if choices["RERANKER"] == "pointwise"
            else f"re-orders the top {n} results"
        )
    expected = _expected_seconds(model, choices)
    return FullModePlan(model, f"Full mode: {model} {_joined(doing)}.", expected)


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _expected_seconds(model: str, choices: dict) -> float | None:
    """From this machine's own recent calls of the stages that are on, where each has a few;
    else the figure measured for the model (settings' FULL_MODE_P50_S); else unknown."""
    stages = set(choices["STAGES"])
    pointwise = choices["RERANKER"] == "pointwise"
    calls = {  # purpose -> calls per search
        "augment": 1 if "S5" in stages else 0,
        "codegen": 1 if stages & {"S2", "S3"} else 0,
        "rerank": (choices["RERANK_CANDIDATES"] if pointwise else 1) if "rerank" in stages else 0,
    }
    total_ms = 0.0
    for purpose, per_search in calls.items():
        if not per_search:
            continue
        recent = list(
            LLMCall.objects.filter(model=model, purpose=purpose, cached=False, error="")
            .order_by("-created_at")
            .values_list("latency_ms", flat=True)[:_RECENT_CALLS]
        )
        if len(recent) < _ENOUGH_CALLS:
            measured = choices.get("FULL_MODE_P50_S")
            return float(measured) if measured else None
        total_ms += statistics.median(recent) * per_search
    return round(total_ms / 1000, 1)
