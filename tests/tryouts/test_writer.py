"""The example writer with a scripted LLM and the real bubblewrap sandbox: a program that runs,
one repaired after an error, a hostile one stopped, and answers that never become a program."""

from __future__ import annotations

import pytest

from agents.errors import LLMError
from sandbox.base import Limits
from sandbox.bubblewrap import BubblewrapSandbox
from tests.support.scripted_llm import ScriptedLLM
from tryouts.writer import ExampleWriter, FoundUnit, check_example, failed_check

pytestmark = pytest.mark.slow

SLUG = "def slugify_title(title):\n    return '-'.join(title.lower().split())\n"
UNIT = FoundUnit(SLUG, "shop.text", "slugify_title")
GOOD = (
    "```python\nfrom shop.text import slugify_title\n\n"
    "result = slugify_title('Hello World')\n"
    "print('slugify_title(\"Hello World\") ->', repr(result))\n"
    "assert result == 'hello-world'\n```"
)
LIMITS = Limits(cpu_s=3, wall_s=5.0, memory_mb=256)


@pytest.fixture
def code_dir(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "text.py").write_text(SLUG)
    return tmp_path


def writer(answer) -> tuple[ExampleWriter, ScriptedLLM]:
    llm = ScriptedLLM(answer)
    return ExampleWriter(client=llm, sandbox=BubblewrapSandbox(), limits=LIMITS), llm


def test_a_program_that_runs_and_checks(code_dir):
    example, llm = writer(lambda prompt, message: GOOD)
    outcome = example.write(UNIT, code_dir)
    assert outcome.status == "passed", outcome
    assert "-> 'hello-world'" in outcome.stdout and outcome.error == ""
    assert [c[0] for c in llm.calls] == ["example_write.v2"]
    assert "from shop.text import slugify_title" in llm.calls[0][1]


def test_an_error_is_repaired_and_a_wrong_check_is_reported(code_dir):
    broken = GOOD.replace(
        "from shop.text import slugify_title",
        "from shop.text import slugify_title\nimport missing_helper",
    )
    wrong = GOOD.replace("== 'hello-world'", "== 'Hello-World'")
    other = broken.replace("missing_helper", "other_helper")
    # The recheck gives back the first program: a new one is sampled instead of running it again.
    answers = iter([broken, wrong, broken, other])
    example, llm = writer(lambda prompt, message: next(answers))
    outcome = example.write(UNIT, code_dir)
    assert [c[0] for c in llm.calls] == [
        "example_write.v2",
        "example_fix.v2",
        "example_recheck.v2",
        "example_write.v2",
    ]
    assert llm.temperatures == [0.0, 0.0, 0.0, 0.8]
    assert "No module named 'missing_helper'" in llm.calls[1][1]
    assert "other_helper" in outcome.attempts[2]["outcome"]
    # the correction that no longer runs does not replace the program whose check failed
    assert outcome.status == "check_failed" and len(outcome.attempts) == 3
    assert "AssertionError" in outcome.stderr and "== 'Hello-World'" in outcome.program


def test_a_failed_check_is_corrected_from_what_the_run_printed(code_dir):
    wrong = GOOD.replace("== 'hello-world'", "== 'Hello-World'")
    answers = iter([wrong, GOOD])
    example, llm = writer(lambda prompt, message: next(answers))
    outcome = example.write(UNIT, code_dir)
    assert [c[0] for c in llm.calls] == ["example_write.v2", "example_recheck.v2"]
    assert "-> 'hello-world'" in llm.calls[1][1]  # the model sees what the call returned
    assert "assert result == 'Hello-World', repr(result)" in llm.calls[1][1]
    assert "The value the code returned there: 'hello-world'" in llm.calls[1][1]
    assert outcome.status == "passed" and outcome.error == ""
    assert [a["outcome"].split(":")[0] for a in outcome.attempts] == [
        "an assertion failed",
        "passed",
    ]


def test_a_hostile_example_is_stopped_by_the_sandbox(code_dir):
    head = "```python\nfrom shop.text import slugify_title\n"
    tail = "assert slugify_title('A') == 'a'\n```"
    reach = head + "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\n" + tail
    spin = head + "while True:\n    pass\n" + tail
    write = head + "open('/usr/reporift-owned', 'w').write('x')\n" + tail
    for program, expected in (
        (reach, "it could not run: OSError"),
        (spin, "stopped by the sandbox's cpu time limit"),
        (write, "Read-only file system"),
    ):
        example, llm = writer(lambda prompt, message, program=program: program)
        outcome = example.write(UNIT, code_dir)
        assert outcome.status == "error" and len(outcome.attempts) == 3
        assert expected in outcome.attempts[0]["outcome"], outcome.attempts[0]
        assert expected in llm.calls[1][1]  # the fixer is told what stopped it


def test_answers_that_never_become_a_program_and_a_failing_llm(code_dir):
    example, llm = writer(lambda prompt, message: "I cannot help with that.")
    outcome = example.write(UNIT, code_dir)
    assert outcome.status == "error" and "does not parse" in outcome.error
    # Each repair gave back the same non-program: a new one was sampled after it, twice.
    assert len(llm.calls) == 5 and not outcome.program
    assert llm.temperatures == [0.0, 0.0, 0.8, 0.0, 0.8]

    def down(prompt, message):
        raise LLMError("timed out after 60 s")

    example, _ = writer(down)
    outcome = example.write(UNIT, code_dir)
    assert outcome.status == "error" and outcome.error == "the LLM failed: timed out after 60 s"


def test_checks_before_running():
    assert "does not import" in check_example("x = 1\nassert x == 1", UNIT)
    assert "defines slugify_title again" in check_example(
        "from shop.text import slugify_title\n" + SLUG + "assert slugify_title('a') == 'a'", UNIT
    )
    assert "no assert" in check_example("from shop.text import slugify_title\nprint(1)", UNIT)
    assert "1 `...` placeholder" in check_example(
        "from shop.text import slugify_title\nassert slugify_title('a') == ...", UNIT
    )
    assert (
        check_example("from shop.text import slugify_title\nassert slugify_title('a') == 'a'", UNIT)
        == ""
    )


def test_the_failed_check_is_found_in_the_traceback():
    program = "x = 1\nassert x == 2, repr(x)  # must be two\n"
    stderr = (
        'Traceback (most recent call last):\n  File "/sandbox/work/main.py", line 2, in <module>\n'
        "    assert x == 2, repr(x)\nAssertionError: 1\n"
    )
    assert failed_check(program, stderr) == ("assert x == 2, repr(x)  # must be two", "1")
    assert failed_check(program, "Killed") == ("(unknown)", "(unknown)")


def test_an_answer_cut_off_runs_as_far_as_its_whole_statements(code_dir):
    # the token limit struck inside a string after the check: the answer's block never closes
    cut = GOOD.removesuffix("\n```") + '\nprint("and another call on a much longer tit'
    example, llm = writer(lambda prompt, message: cut)
    outcome = example.write(UNIT, code_dir)
    assert outcome.status == "passed", outcome
    assert outcome.program.rstrip().endswith("assert result == 'hello-world', repr(result)")
    assert len(llm.calls) == 1  # no repair asked for
