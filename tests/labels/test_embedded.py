"""`reporift label` end to end on the shop fixture with the real embedded model, offline: every
agent's prompt goes to Qwen2.5-Coder-0.5B on loopback, its tests run in bubblewrap, and the
dataset it writes is scored by `evaluate --format cosqa-plus`."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from agents.llm import get_llm_client
from labels.models import LabelRun

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_label_generated_queries_then_evaluate(shop, tmp_path, settings):
    settings.REPORIFT["LLM"]["BASE_URL"] = ""
    get_llm_client.cache_clear()
    out = tmp_path / "labels"
    call_command(
        "label",
        "shop",
        "--generate",
        "2",
        "--out",
        str(out),
        "--candidates",
        "2",
        "--method",
        "agents",
    )
    label_run = LabelRun.objects.get()
    assert label_run.status == "succeeded", label_run.error
    assert label_run.model == "qwen2.5-coder-0.5b-instruct"
    queries = json.loads((out / "query.json").read_text())
    assert len(queries) == 2 and queries[0]["source"] == "docstring"
    trail = [json.loads(line) for line in (out / "trail.jsonl").read_text().splitlines()]
    assert trail and all(entry["screener"]["raw"] for entry in trail)
    for entry in trail:  # whatever the model said, each pair is labelled or its error kept
        assert entry["label"] in (0, 1) or entry["error"]
    pairs = json.loads((out / "pairs.json").read_text())
    assert len(pairs) == label_run.pairs_done
    report = tmp_path / "report.json"
    call_command("evaluate", str(out), "--format", "cosqa-plus", "--out", str(report))
    assert "ndcg@10" in json.loads(report.read_text())
