"""The labelling agents on single pairs: parsing and validating each answer, and the whole
screener -> test -> sandbox -> fixer -> arbiter path with a scripted LLM and the real sandbox."""

from __future__ import annotations

import pytest

from agents.programs import check_program, cut_off, runnable_test
from labels.agents import LabelConfig, Labeller, Pair, assemble, parse_screen
from sandbox.base import Limits
from sandbox.bubblewrap import BubblewrapSandbox

SLUG = "def slugify(title):\n    return '-'.join(title.lower().split())\n"
PAIR = Pair("q1", "turn a title into a url slug", "c1", SLUG)
LIMITS = Limits(cpu_s=3, wall_s=8, memory_mb=512, processes=16)


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Verdict: MATCH\nReason: it slugifies", "match"),
        ("Verdict: NO MATCH\nReason: unrelated", "no_match"),
        ("verdict - no_match", "no_match"),
        ("**Verdict:** Unclear\nReason: needs running", "unclear"),
        ("UNCLEAR, it depends", "unclear"),
    ],
)
def test_screener_answers_are_read(text, verdict):
    assert parse_screen(text)[0] == verdict


def test_screener_garbage_is_an_error():
    with pytest.raises(ValueError, match="no verdict"):
        parse_screen("I like turtles")


def test_a_test_program_is_checked_before_it_runs():
    assert "no assert" in check_program("print(1)", PAIR)
    assert "does not parse" in check_program("assert (", PAIR)
    assert "defines slugify again" in check_program(SLUG + "assert slugify('A')", PAIR)
    assert check_program("assert slugify('A B') == 'a-b'", PAIR) == ""


def test_a_snippet_goes_below_the_tests_imports():
    program = assemble("import os\nassert slugify('A') == 'a'", PAIR, "/code")
    assert program.index("import os") < program.index("def slugify") < program.index("assert")
    repo_pair = Pair("q", "x", "c", SLUG, module="shop.text", name="slugify")
    assert "sys.path.insert(0, '/code')" in assemble("assert 1", repo_pair, "/code")


def labeller(client, method="agents"):
    return Labeller(
        client=client,
        sandbox=BubblewrapSandbox(),
        limits=LIMITS,
        config=LabelConfig(method=method, max_fixes=1),
    )


def test_clear_screener_decides_without_a_test(scripted):
    client = scripted(lambda prompt, _: "Verdict: MATCH\nReason: yes")
    trail = labeller(client).label(PAIR)
    assert trail["label"] == 1 and trail["decided_by"] == "screener"
    assert "test" not in trail and len(client.calls) == 1


def test_unclear_pair_is_tested_fixed_and_arbitrated(scripted):
    """The first test forgets an import (NameError): the fixer adds it, the test runs to its
    asserts in the sandbox, and the arbiter sees that it passed."""
    answers = {
        "label_screen.v1": "Verdict: UNCLEAR\nReason: run it",
        "label_test.v1": fenced(
            "# Interpretation: lowercase words joined by hyphens\n"
            "assert re.fullmatch('[a-z-]+', slugify('Hello World'))"
        ),
        "label_fix.v1": fenced(
            "# Interpretation: lowercase words joined by hyphens\nimport re\n"
            "assert re.fullmatch('[a-z-]+', slugify('Hello World'))"
        ),
        "label_arbiter.v1": "Yes",
    }
    client = scripted(lambda prompt, _: answers[prompt])
    trail = labeller(client).label(PAIR)
    attempts = trail["test"]["attempts"]
    assert [a["execution"]["status"] for a in attempts] == ["failed", "passed"]
    assert "NameError" in attempts[0]["outcome"]
    assert trail["test"]["executable"] is True
    assert trail["test"]["interpretation"] == "lowercase words joined by hyphens"
    assert trail["label"] == 1 and trail["decided_by"] == "arbiter"
    arbiter_prompt = client.calls[-1][1]
    assert "passed: every assertion held" in arbiter_prompt


def test_a_hostile_test_is_stopped_and_reported(scripted):
    answers = {
        "label_screen.v1": "Verdict: UNCLEAR",
        "label_test.v1": fenced("import os\nwhile True:\n    os.fork()\nassert False"),
        "label_fix.v1": fenced(
            "import socket\nsocket.create_connection(('1.1.1.1', 80))\nassert 0"
        ),
        "label_arbiter.v1": "No",
    }
    trail = labeller(scripted(lambda prompt, _: answers[prompt])).label(PAIR)
    first, second = trail["test"]["attempts"]
    assert first["execution"]["status"] == "stopped"
    assert "limit" in first["outcome"]
    assert "could not run" in second["outcome"]
    assert trail["test"]["executable"] is False
    assert trail["label"] == 0


def test_garbage_from_the_arbiter_is_the_pairs_error_not_a_label(scripted):
    answers = {
        "label_screen.v1": "Verdict: UNCLEAR",
        "label_test.v1": fenced("assert slugify('A B') == 'a-b'"),
        "label_arbiter.v1": "Perhaps.",
    }
    trail = labeller(scripted(lambda prompt, _: answers[prompt])).label(PAIR)
    assert trail["label"] is None and "neither Yes nor No" in trail["error"]


def test_single_judge(scripted):
    trail = labeller(scripted(lambda prompt, _: "No"), method="judge").label(PAIR)
    assert trail["label"] == 0 and trail["judge"]["p_yes"] < 0.5


def test_graded_screener_tests_only_inside_its_band(scripted):
    """With a band (small models), the screener is the judge's P(yes): outside the band it
    decides, inside it the pair is tested; the arbiter's threshold is the model's."""
    answers = {
        "label_judge.v1": "Yes",  # P(yes) = 0.92 from the scripted log-probabilities
        "label_test.v1": fenced("assert slugify('A B') == 'a-b'"),
        "label_arbiter.v1": "Yes",
    }
    client = scripted(lambda prompt, _: answers[prompt])

    def graded(band, threshold=0.5):
        return Labeller(
            client=client,
            sandbox=BubblewrapSandbox(),
            limits=LIMITS,
            config=LabelConfig(screen_band=band, threshold=threshold),
        ).label(PAIR)

    sure = graded((0.2, 0.9))
    assert sure["decided_by"] == "screener" and sure["label"] == 1
    assert "P(yes) 0.917" in sure["screener"]["reason"]
    tested = graded((0.2, 0.95), threshold=0.95)
    assert tested["decided_by"] == "arbiter" and tested["test"]["executable"]
    assert tested["label"] == 0  # 0.917 is below the model's threshold of 0.95
    assert all(prompt != "label_screen.v1" for prompt, _ in client.calls)


def test_small_model_habits_are_made_runnable_without_changing_the_asserts():
    """The candidate copied in a block of its own, copied again above the test, a test
    function never called, the closing fence cut off by the token limit."""
    answer = (
        "```python\n" + SLUG + "```\n\nTest program:\n```python\n# Interpretation: slugs\n"
        "import re\n\n" + SLUG + "\ndef test_slug():\n    assert slugify('A B') == 'a-b'\n"
    )
    program = runnable_test(answer, PAIR)
    assert "def slugify" not in program and program.rstrip().endswith("test_slug()")
    assert check_program(program, PAIR) == ""
    assert "assert slugify('A B') == 'a-b'" in program
    called_already = "def test_x():\n    assert True\n\ntest_x()\n"
    assert runnable_test(f"```python\n{called_already}```", PAIR).count("\ntest_x()") == 1


def test_each_embedded_model_labels_with_its_own_calibration():
    large = LabelConfig.for_model("qwen2.5-coder-1.5b-instruct", "judge")
    assert (large.threshold, large.screen_band) == (0.63, (0.51, 0.696))
    small = LabelConfig.for_model("qwen2.5-coder-0.5b-instruct", "agents")
    assert small.threshold == 0.848 and small.method == "agents"
    unknown = LabelConfig.for_model("some-endpoint-model", "judge")
    assert (unknown.threshold, unknown.screen_band) == (0.5, None)


def test_an_answer_whose_last_block_never_closes_was_cut_off():
    assert cut_off("Here:\n```python\nx = 1\nassert x")
    assert not cut_off("```python\nx = 1\n```")
    assert not cut_off("no code at all")
