"""A label run over the indexed shop fixture: plan, label in the sandbox, CoSQA+ files that
`evaluate --format cosqa-plus` scores, resuming after an interruption, and clear refusals."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from labels.models import LabelRun
from labels.services import LabelError, label_run_execute
from search.evaluation.datasets import load_dataset

pytestmark = pytest.mark.django_db


def answer(prompt: str, message: str) -> str:
    """Deterministic stand-in answers: a question about the code shown; screening always
    unclear; a test that imports the candidate as told and checks it is callable; the arbiter
    says Yes when the code's name shares a word with the query."""
    if prompt.startswith("label_question"):
        return "How do I split one line of comma separated fields?"
    if prompt.startswith("label_screen"):
        return "Verdict: UNCLEAR\nReason: needs a run"
    if prompt.startswith("label_test"):
        module, name = re.search(r"from (\S+) import (\w+)`", message).groups()
        test = f"# Interpretation: it exists\nfrom {module} import {name}\nassert callable({name})"
        return f"```python\n{test}\n```"
    if prompt.startswith(("label_arbiter", "label_judge")):
        query = set(re.split(r"\W+", re.search(r"Query: (.*)", message).group(1).lower()))
        name = re.search(r"(?:def|class) (\w+)", message).group(1)
        return "Yes" if set(re.split(r"[_\W]+", name.lower())) & (query - {""}) else "No"
    raise AssertionError(prompt)


def run(shop, out, client, **kwargs):
    return label_run_execute(
        repository=shop, out_dir=out, generate=2, depth=3, client=client, **kwargs
    )


def test_label_run_writes_a_dataset_that_evaluate_scores(shop, tmp_path, scripted, capsys):
    out = tmp_path / "labels"
    label_run = run(shop, out, scripted(answer))
    assert label_run.status == LabelRun.Status.SUCCEEDED and label_run.error == ""
    queries = json.loads((out / "query.json").read_text())
    assert {q["source"] for q in queries} == {"docstring", "llm"}
    pairs = json.loads((out / "pairs.json").read_text())
    assert len(pairs) == label_run.pairs_total == label_run.pairs_done > 0
    assert {p["label"] for p in pairs} == {0, 1}
    trail = [json.loads(line) for line in (out / "trail.jsonl").read_text().splitlines()]
    # Every test imported the repository's code from the sandbox's read-only copy and ran.
    assert all(t["test"]["executable"] for t in trail), trail[0]["test"]
    assert label_run.tests_executable == label_run.tests_run == len(trail)
    dataset = load_dataset(out, "cosqa-plus")
    assert dataset.queries and set(dataset.corpora) == {"codebase"}
    call_command("evaluate", str(out), "--format", "cosqa-plus", "--out", str(tmp_path / "r.json"))
    report = json.loads((tmp_path / "r.json").read_text())
    assert {"ndcg@10", "mrr", "map@10"} <= set(report)
    assert report["mrr"] > 0  # the labelled ids reach the evaluation's snippet corpus intact


def test_an_interrupted_run_continues_with_the_same_labels(shop, tmp_path, scripted):
    whole = tmp_path / "whole"
    uninterrupted = scripted(answer)
    run(shop, whole, uninterrupted)
    broken = tmp_path / "broken"
    client = scripted(answer, interrupt_at=9)
    with pytest.raises(KeyboardInterrupt):
        run(shop, broken, client)
    assert LabelRun.objects.get(out_dir=str(broken.resolve())).status == "interrupted"
    decided = len((broken / "trail.jsonl").read_text().splitlines())
    assert decided >= 1
    again = scripted(answer)
    label_run = run(shop, broken, again)
    assert label_run.status == "succeeded"
    assert (broken / "pairs.json").read_text() == (whole / "pairs.json").read_text()
    # The pairs decided before the interruption were not asked about again.
    assert len(again.calls) < len(uninterrupted.calls)
    assert len((broken / "trail.jsonl").read_text().splitlines()) == label_run.pairs_total


def test_a_reindexed_repository_is_not_resumed(shop, tmp_path, scripted):
    out = tmp_path / "labels"
    run(shop, out, scripted(answer), method="judge")
    shop.active_run_id += 1000
    with pytest.raises(LabelError, match="re-indexed"):
        run(shop, out, scripted(answer), method="judge")


def test_no_sandbox_no_agents(shop, tmp_path, scripted):
    class Missing:
        name = "missing"

        def unavailable_reason(self):
            return "bubblewrap is not installed"

    with pytest.raises(LabelError, match="need a sandbox: bubblewrap is not installed"):
        run(shop, tmp_path / "x", scripted(answer), sandbox=Missing())


def test_given_queries(shop, tmp_path, scripted):
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps(["retry a failed http call", {"query": "make a slug"}]))
    label_run = label_run_execute(
        repository=shop,
        out_dir=tmp_path / "out",
        queries_file=queries,
        depth=2,
        method="judge",
        client=scripted(lambda prompt, message: "Yes"),
    )
    assert label_run.queries == 2 and label_run.positives == label_run.pairs_done
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(LabelError, match="expected a JSON list"):
        label_run_execute(
            repository=shop,
            out_dir=tmp_path / "bad",
            queries_file=bad,
            method="judge",
            client=scripted(answer),
        )


def test_staff_see_label_runs_in_the_admin(shop, tmp_path, scripted, admin_client):
    run(shop, tmp_path / "labels", scripted(answer), method="judge")
    page = admin_client.get("/admin/labels/labelrun/")
    assert page.status_code == 200
    body = page.content.decode()
    label_run = LabelRun.objects.get()
    assert f"{label_run.pairs_done}/{label_run.pairs_total}" in body and "succeeded" in body
