"""Embedder pairs from the written train questions: each primary target's code as the index
embeds it, with a hard negative that is none of the question's targets; rows the evaluation's
loader refuses are refused here too."""

import json

import pytest

from benchmarks.question_pairs import question_pairs
from indexing.parsing import MODULE, parse_source
from indexing.unit_text import code_text
from search.evaluation.datasets import DatasetError
from search.evaluation.questions import installed_version, package_root


def unit_text(path: str, qualname: str = "", *, kind: str = "") -> str:
    units = parse_source((package_root("tqdm") / path).read_bytes()).units
    return code_text(next(u for u in units if u.qualname == qualname or (kind and u.kind == kind)))


def write(tmp_path, *questions) -> None:
    version = installed_version("tqdm")
    lines = [json.dumps({"package": "tqdm", "version": version, **q}) for q in questions]
    (tmp_path / "tqdm.jsonl").write_text("\n".join(lines) + "\n")


def test_unit_and_file_targets_become_pairs_whose_negative_is_no_target(tmp_path):
    write(
        tmp_path,
        {
            "id": "t-1",
            "kind": "behaviour",
            "query": "show a progress bar over a range of numbers",
            "primary": [{"path": "tqdm/std.py", "qualname": "trange"}],
            "secondary": [{"path": "tqdm/auto.py"}],
        },
        {
            "id": "t-2",
            "kind": "architecture",
            "query": "which progress bar class does the auto module pick",
            "primary": [{"path": "tqdm/autonotebook.py"}],
        },
    )
    first, second = question_pairs(tmp_path)
    assert first["code"] == unit_text("std.py", "trange")
    assert first["source"] == "question:tqdm" and first["query"].startswith("show a progress")
    assert first["negative"] and first["negative"] != first["code"]
    # the secondary file's units are targets too: never the negative
    auto = {
        code_text(u) for u in parse_source((package_root("tqdm") / "auto.py").read_bytes()).units
    }
    assert first["negative"] not in auto
    assert second["code"] == unit_text("autonotebook.py", kind=MODULE)


def test_a_question_written_against_another_version_is_refused(tmp_path):
    (tmp_path / "tqdm.jsonl").write_text(
        json.dumps(
            {
                "id": "t-3",
                "package": "tqdm",
                "version": "0.0.1",
                "kind": "symbol",
                "query": "tqdm",
                "primary": [{"path": "tqdm/std.py", "qualname": "tqdm"}],
            }
        )
        + "\n"
    )
    with pytest.raises(DatasetError, match=r"written against tqdm 0\.0\.1"):
        question_pairs(tmp_path)


def test_a_unit_target_that_is_not_there_is_refused(tmp_path):
    write(
        tmp_path,
        {
            "id": "t-4",
            "kind": "symbol",
            "query": "nothing",
            "primary": [{"path": "tqdm/std.py", "qualname": "NoSuchThing"}],
        },
    )
    with pytest.raises(DatasetError, match="defines no 'NoSuchThing'"):
        question_pairs(tmp_path)
