import json
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from search.evaluation.datasets import GoldUnit
from search.evaluation.metrics import query_metrics
from search.evaluation.runner import ablation_configurations, judge
from tests.conftest import SAMPLE_FILES

pytestmark = pytest.mark.django_db


def result(path, qualname, kind="function", streams=("S1",)):
    unit = SimpleNamespace(path=path, qualname=qualname, kind=kind)
    return SimpleNamespace(unit=unit, score=0.5, streams=list(streams))


def test_enclosing_class_counts_once():
    gold = [GoldUnit("a.py", "Gateway.charge")]
    _rows, rel, found = judge(
        [
            result("a.py", "other"),
            result("a.py", "Gateway", "class", ("S4",)),
            result("a.py", "Gateway.charge", "method"),
        ],
        gold,
        snippets=False,
    )
    assert rel == [0, 1, 0]  # the class hits; the method then finds its gold already matched
    assert found == ["S4"]
    assert judge([result("b.py", "Gateway", "class")], gold, snippets=False)[1] == [0]


def test_snippets_collapse_to_snippet_ids():
    rows, rel, _ = judge(
        [result("7.py", "f"), result("7.py", "f.inner"), result("9.py", "g")],
        [GoldUnit("9")],
        snippets=True,
    )
    assert [r["path"] for r in rows] == ["7", "9"] and rel == [0, 1]


def test_ablation_configurations():
    labels = [label for label, _ in ablation_configurations(["S1", "S4"])]
    assert labels == ["S1 only", "S4 only", "all: S1+S4"]
    assert len(ablation_configurations(["S1", "S2", "S4"])) == 7


def test_evaluate_repo_rows_end_to_end(tmp_path, write_repo, capsys):
    repo = write_repo(SAMPLE_FILES)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "query": "retry failed http calls",
                    "repo": str(repo),
                    "gold": [{"path": "shop/payments.py", "qualname": "retry_http_call"}],
                },
                {
                    "query": "charge a credit card",
                    "repo": str(repo),
                    "gold": [{"path": "shop/payments.py", "qualname": "PaymentGateway.charge"}],
                },
                {
                    "query": "split csv line",
                    "repo": str(repo),
                    "gold": [{"path": "shop/text.py", "qualname": "parse_csv_line"}],
                },
            ]
        )
    )
    out = tmp_path / "report.json"
    call_command("evaluate", str(rows), "--format", "repo", "--out", str(out), "--ablate")
    report = json.loads(out.read_text())
    assert report["n_queries"] == 3 and report["success@10"] == 1.0
    assert set(report["latency_ms"]) == {"p50", "p95", "p99", "mean"}
    assert [q["query"] for q in report["per_query"]] == [
        "retry failed http calls",
        "charge a credit card",
        "split csv line",
    ]
    # Anyone can recompute the metrics from per_query.
    for entry, expected_first in zip(
        report["per_query"], ["retry_http_call", "PaymentGateway", "parse_csv_line"], strict=True
    ):
        assert entry["results"][0]["qualname"].startswith(expected_first)
        assert set(entry["results"][0]) == {
            "path",
            "qualname",
            "kind",
            "score",
            "streams",
            "covers_primary",
        }
    recomputed = []
    for entry in report["per_query"]:
        gold = {(g["path"], g["qualname"]) for g in entry["gold"]}
        rel = [1.0 if (r["path"], r["qualname"]) in gold else 0.0 for r in entry["results"]]
        recomputed.append(query_metrics(rel, [1.0], k=10)["mrr"])
    assert sum(recomputed) / 3 == pytest.approx(report["mrr"], abs=1e-4)
    assert out.with_suffix(".ablation.png").stat().st_size > 1000
    assert "S4 only" in out.with_suffix(".ablation.md").read_text()


def test_evaluate_snippet_corpus(tmp_path):
    (tmp_path / "code_idx_map.txt").write_text(
        json.dumps(
            {
                "def read_text_file(path):\n    with open(path) as f:\n        return f.read()": 0,
                "def add(a, b):\n    return a + b": 1,
                "def reverse_string(s):\n    return s[::-1]": 2,
            }
        )
    )
    dev = tmp_path / "cosqa-retrieval-dev-2.json"
    dev.write_text(
        json.dumps(
            [
                {"doc": "python read a file", "retrieval_idx": 0},
                {"doc": "how to reverse a string in python", "retrieval_idx": 2},
            ]
        )
    )
    out = tmp_path / "cosqa.json"
    call_command("evaluate", str(dev), "--format", "cosqa", "--out", str(out))
    report = json.loads(out.read_text())
    assert report["success@1"] == 1.0 and report["corpus_units"] == {"cosqa": 3}
    assert report["per_query"][0]["results"][0]["path"] == "0"
    # Rows without a kind carry their id too: two CoSQA reports pair query by query.
    assert len({entry["id"] for entry in report["per_query"]}) == 2
