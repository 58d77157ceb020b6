"""Programs an LLM writes to run found code (label tests, examples): taking the program out of
an answer, checking it before it runs, and saying in one line how its run ended."""

from __future__ import annotations

import ast
import re
from typing import Protocol

from sandbox.base import Execution


class TestedCode(Protocol):
    """The code a program runs: its source, and the module it is imported from (empty for a
    standalone snippet, which is pasted above the program instead)."""

    code: str
    module: str


def defined_names(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def check_program(program: str, tested: TestedCode) -> str:
    """Why a generated test cannot be used as it is ("" when it can)."""
    try:
        tree = ast.parse(program)
    except SyntaxError as exc:
        return f"the test does not parse: {exc.msg} (line {exc.lineno})"
    if not any(isinstance(node, ast.Assert) for node in ast.walk(tree)):
        return "the test has no assert statement"
    if not tested.module:
        again = defined_names(program) & defined_names(tested.code)
        if again:
            return f"the test defines {', '.join(sorted(again))} again instead of testing it"
    return ""


_BLOCK = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)


def cut_off(answer: str) -> bool:
    """Whether the answer's last code block was never closed: the token limit struck inside it
    (`_BLOCK` then takes the block to the answer's end)."""
    return answer.count("```") % 2 == 1


def runnable_test(answer: str, tested: TestedCode) -> str:
    """The test program in an answer, made runnable without changing what it asserts. Small
    models copy the code before the test (often in a block of its own), define test functions
    without calling them, and run out of tokens before the closing fence: the block with
    asserts is taken, copies of the tested code are removed (the original is what runs), and
    test functions the program never calls are called at its end."""
    blocks = [b.strip() for b in _BLOCK.findall(answer)] or [answer.strip()]
    program = next((b for b in reversed(blocks) if "assert" in b), blocks[-1])
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program  # check_program reports it and the fixer gets it
    lines = program.splitlines()
    copies = defined_names(tested.code) if not tested.module else set()
    drop: set[int] = set()
    tests: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name in copies:
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                drop.update(range(start - 1, node.end_lineno))
            elif (
                isinstance(node, ast.FunctionDef)
                and node.name.startswith("test")
                and len(node.args.args) == len(node.args.defaults)
            ):
                tests.append(node.name)
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    kept = [line for number, line in enumerate(lines) if number not in drop]
    kept += [f"{name}()" for name in tests if name not in called]
    return "\n".join(kept)


def outcome_of(execution: Execution) -> str:
    """One line for the arbiter and the trail."""
    if execution.passed:
        return "passed: every assertion held"
    if execution.status == "stopped":
        return f"stopped by the sandbox's {execution.limit} limit"
    last = (execution.stderr.strip().splitlines() or ["(no output)"])[-1][:300]
    if "AssertionError" in execution.stderr:
        return f"an assertion failed: {last}"
    return f"it could not run: {last}"


def ran_to_its_asserts(execution: Execution) -> bool:
    """Executable in CoSQA+'s sense: the program ran and its assertions decided the result."""
    return execution.passed or (
        execution.status == "failed" and "AssertionError" in execution.stderr
    )
