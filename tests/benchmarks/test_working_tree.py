"""The working-tree benchmark's pure parts: the tree it copies, the edits it makes to it, how it
reads search results and sums up its repeats (the timed run itself is `make bench-working-tree`)."""

import ast

import pytest

from benchmarks import tree_edits as edits
from benchmarks.working_tree_report import field, section, summary

HELPER = '''"""Helpers."""


def shared():
    return 0


def tidy(text):
    """Trim the text."""
    cleaned = text.strip()
    return cleaned


def tiny(): return 1


@property
def decorated(self):
    value = self.x
    return value
'''


@pytest.fixture
def source(tmp_path):
    root = tmp_path / "pkg"
    for relative, text in {
        "b/z.py": "def shared():\n    x = 1\n    return x\n",
        "a.py": "A = 1\nB = 2\n",
        "b/helpers.py": HELPER,
        "b/__init__.py": "def init_only():\n    x = 1\n    return x\n",
        "c/d.py": "async def fetch(url):\n    body = await get(url)\n    return body\n",
        "c/notes.txt": "not python\n",
    }.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def test_build_tree_copies_the_first_files_by_path(source, tmp_path):
    counts = edits.build_tree(source=source, dest=tmp_path / "tree", files=3)
    copied = sorted(
        p.relative_to(tmp_path / "tree").as_posix() for p in (tmp_path / "tree").rglob("*")
    )
    assert copied == ["a.py", "b", "b/__init__.py", "b/helpers.py"]
    assert counts == {"files": 3, "lines": 2 + 3 + len(HELPER.splitlines())}


def test_pick_functions_skips_shared_names_init_files_decorators_and_one_liners(source):
    assert edits.pick_functions(tree=source, count=2) == [
        edits.Target(path="b/helpers.py", name="tidy"),
        edits.Target(path="c/d.py", name="fetch"),
    ]
    with pytest.raises(ValueError, match="2 editable functions, 3 wanted"):
        edits.pick_functions(tree=source, count=3)


def test_replace_body_keeps_the_signature_and_docstring(source):
    path = source / "b" / "helpers.py"
    edits.replace_body(path=path, name="tidy", body="\nimport re\n\nreturn re.sub('x', '', text)\n")
    text = path.read_text()
    assert (
        '''def tidy(text):
    """Trim the text."""
    import re

    return re.sub('x', '', text)


def tiny(): return 1
'''
        in text
    )
    assert "cleaned" not in text and "def shared():\n    return 0\n" in text
    ast.parse(text)


def test_replace_body_of_a_function_without_a_docstring(source):
    path = source / "c" / "d.py"
    edits.replace_body(path=path, name="fetch", body="return url")
    assert path.read_text() == "async def fetch(url):\n    return url\n"


def test_append_function_leaves_the_file_valid(source):
    path = source / "a.py"
    edits.append_function(path=path, source="\ndef added():\n    return 3\n")
    assert path.read_text() == "A = 1\nB = 2\n\n\ndef added():\n    return 3\n"


def test_every_round_edits_into_valid_python(source):
    for spec in edits.ROUNDS.values():
        path = source / "b" / "helpers.py"
        edits.replace_body(path=path, name="tidy", body=spec["changed"])
        edits.append_function(path=path, source=spec["added"])
        text = path.read_text()
        assert spec["changed_marker"] in text
        ast.parse(text)


def test_rank_of_needs_path_and_name():
    results = [
        {"path": "a.py", "qualname": "f"},
        {"path": "b.py", "qualname": "g"},
        {"path": "c.py", "qualname": "f"},
    ]
    assert edits.rank_of(results, path="c.py", qualname="f") == 3
    assert edits.rank_of(results, path="b.py", qualname="f") is None


def test_summary_over_repeats_only_where_every_repeat_has_a_time():
    rows = [
        {"first_answer_s": 4.0, "early": {"added_call_ms": 900.0}, "full_s": None},
        {"first_answer_s": 6.0, "early": {"added_call_ms": 700.0}, "full_s": 80.0},
        {"first_answer_s": 5.5, "early": {"added_call_ms": 800.0}, "full_s": 90.0},
    ]
    assert field(rows[0], "early.added_call_ms") == 900.0
    assert field(rows[0], "late.added_call_ms") is None
    assert summary(rows) == {
        "first_answer_s": {"median": 5.5, "min": 4.0, "max": 6.0},
        "early.added_call_ms": {"median": 800.0, "min": 700.0, "max": 900.0},
    }


def test_section_states_the_target_and_every_check():
    row = {
        "files": 3,
        "lines": 40,
        "units": 9,
        "loadavg_1min_before": 1.5,
        "first_answer_s": 6.2,
        **{
            name: {"added_rank": 1, "changed_rank": 4, "deleted_gone": True}
            for name in edits.ROUNDS
        },
    }
    report = {
        "repeats": [row],
        "summary": summary([row]),
        "machine": "2 cores",
        "cpu_affinity": [0],
        "command": "python -m benchmarks.working_tree",
        "package": "pkg",
        "version": "1.0",
        "profile": {"wall_s": 9.0, "steps_s": {"index run (phase 1)": 5.0, "the search": 0.4}},
    }
    text = section(report)
    assert "first answer within 5 s: **missed** (median 6.2 s;" in text
    assert "| rewritten function, searched by its new behaviour: rank | 4 | 4 |" in text
    assert "| deleted file: no unit of it returned, `get_code` refuses it | True | True |" in text
    row["first_answer_s"] = 4.8
    report["summary"] = summary([row])
    assert "first answer within 5 s: met (median 4.8 s;" in section(report)
