"""Execution-scored rows (xCodeEval's rule), run for real in the bubblewrap sandbox: a result
is relevant when the row's test program passes against it."""

import json

import pytest

from sandbox.base import Limits
from sandbox.bubblewrap import BubblewrapSandbox
from search.evaluation.datasets import DatasetError, load_dataset
from search.evaluation.execution import ExecutionJudge
from search.evaluation.runner import evaluate
from tests.conftest import SAMPLE_FILES

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SLUG_TEST = """
def check(candidate):
    assert candidate("Hello World") == "hello-world"
"""


def rows_file(tmp_path, root, *rows):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"repo": str(root), **row}) + "\n" for row in rows))
    return path


def test_a_row_is_scored_by_running_its_test(tmp_path, write_repo):
    root = write_repo(SAMPLE_FILES)
    path = rows_file(
        tmp_path,
        root,
        {"query": "turn a title into a url slug", "test": SLUG_TEST},
        # Gold too: the test decides, the gold only documents.
        {
            "query": "split a csv line into fields",
            "gold": [{"path": "shop/text.py", "qualname": "parse_csv_line"}],
            "test": "def check(candidate):\n    assert candidate('a, b') == ['a', 'b']\n",
        },
    )
    report = evaluate(dataset=load_dataset(path, "repo"), k=5, progress=False)
    assert report["success@1"] == 1.0
    first = report["per_query"][0]["results"]
    assert first[0]["qualname"] == "slugify_title" and first[0]["test_passed"] is True
    assert not any(row["test_passed"] for row in first[1:])
    assert {t["outcome"] for t in report["execution_trail"]} == {"passed", "failed"}
    executions = report["executions"]
    assert executions["ran"] >= 4 and executions["passed"] == 2
    assert executions["ran"] == executions["passed"] + executions["failed"] + executions.get(
        "timed_out", 0
    )


def test_a_hostile_test_is_stopped_and_counted(shop):
    judge = ExecutionJudge(
        sandbox=BubblewrapSandbox(), run_limits=Limits(cpu_s=2, wall_s=3.0, memory_mb=256)
    )
    unit = shop.units.get(qualname="slugify_title")
    forever = "def check(candidate):\n    while True:\n        pass\n"
    reach = (
        "def check(candidate):\n    import socket\n"
        "    socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
    )
    with judge:
        assert judge.passes(repository=shop, unit=unit, test=forever) is False
        assert judge.passes(repository=shop, unit=unit, test=reach) is False
        assert judge.passes(repository=shop, unit=unit, test=forever) is False  # cached
    assert judge.tally["ran"] == 2 and judge.tally["failed"] == 1
    assert judge.tally["timed_out"] + judge.tally["stopped"] == 1
    assert [t["outcome"] for t in judge.trail][1] == "failed"


def test_test_rows_are_checked_when_loaded(tmp_path):
    for test, message in (
        ("def check(:", "does not parse"),
        ("def verify(candidate):\n    pass\n", "must define check"),
        (["not", "a program"], "must be a program"),
    ):
        path = rows_file(tmp_path, tmp_path, {"query": "q", "test": test})
        with pytest.raises(DatasetError, match=message):
            load_dataset(path, "repo")
    path = rows_file(tmp_path, tmp_path, {"query": "q"})
    with pytest.raises(DatasetError, match="'gold'"):
        load_dataset(path, "repo")
