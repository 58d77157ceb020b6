"""Writing and running an example of one found unit: the LLM writes a short program that imports
the unit from a read-only copy of its repository, calls it on inputs it builds and checks what
came back; the sandbox runs it; a program that stops before its checks goes back to the LLM
with the error, a bounded number of times (CodeBenchGen's execute-and-repair loop)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agents.errors import LLMError
from agents.llm import LLMClient
from agents.programs import (
    check_program,
    cut_off,
    outcome_of,
    ran_to_its_asserts,
    runnable_test,
)
from agents.prompts import EXAMPLE_FIX, EXAMPLE_RECHECK, EXAMPLE_WRITE, Prompt, code_block
from sandbox.base import Execution, Limits, Sandbox, SandboxUnavailable
from tryouts.harness import (
    ModuleFacts,
    describe,
    import_missing,
    module_facts,
    placeholders_left,
    show_compared_values,
    whole_statements,
)

CODE_CHARS = 3000
OUTPUT_CHARS = 1200  # of a run's printed output, shown to the model to correct its checks
MAX_TOKENS = 400
# A repair that gives back a program already tried (at temperature 0 a small model often
# does) is replaced by a new program sampled at this temperature: the same prompt again would
# give the same answer again.
RESAMPLE_TEMPERATURE = 0.8
_RANK = {"error": 0, "check_failed": 1, "passed": 2}


@dataclass(frozen=True)
class FoundUnit:
    """What the writer needs of a unit: its code, the module it is imported from, its name, and
    the module's source (for the names beside it and how it is called)."""

    code: str
    module: str
    qualname: str
    module_source: str = ""

    @property
    def import_line(self) -> str:
        return f"from {self.module} import {self.qualname.split('.')[0]}"

    @cached_property
    def facts(self) -> ModuleFacts:
        return module_facts(self.module_source, self.qualname)

    def skeleton(self) -> str:
        """The program's shape, filled in by the model: the import, the call, print, assert."""
        top = self.qualname.split(".")[0]
        facts = self.facts
        if facts.build and facts.call.startswith("obj."):
            call = f"obj = {facts.build}\nresult = {facts.call}"
        elif facts.build and facts.methods:
            call = f"obj = {facts.build}\nresult = obj.{facts.methods[0]}(...)"
        else:
            call = f"result = {facts.call or facts.build or top + '(...)'}"
        if facts.is_async:
            call = "import asyncio\n" + call.replace("result = ", "result = asyncio.run(", 1) + ")"
        return (
            f"```python\n{self.import_line}\n\n# small example inputs\n{call}\n"
            'print("call ->", result)\nassert result == ...  # what it must return\n```'
        )


@dataclass
class Outcome:
    status: str  # passed, check_failed or error (as UnitExample.Status)
    program: str = ""
    stdout: str = ""
    stderr: str = ""
    error: str = ""
    attempts: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def check_example(program: str, unit: FoundUnit) -> str:
    """Why a program cannot run as this unit's example ("" when it can)."""
    problem = check_program(program, unit)
    if problem:
        return problem.replace("the test", "the example")
    top = unit.qualname.split(".")[0]
    if unit.module not in program:
        return f"the example does not import the code: start it with `{unit.import_line}`"
    if f"def {top}(" in program or f"class {top}" in program:
        return f"the example defines {top} again instead of importing it"
    if holes := placeholders_left(program):
        return f"the example still has {holes} `...` placeholder(s): put a concrete value in each"
    return ""


_FAILED_LINE = re.compile(r'File "[^"]*main\.py", line (\d+)')


def failed_check(program: str, stderr: str) -> tuple[str, str]:
    """The assert line a run stopped on, and what its message says (the value the code
    returned, from `show_compared_values`); "(unknown)" where the traceback does not say."""
    lines = program.splitlines()
    numbers = [int(n) for n in _FAILED_LINE.findall(stderr)]
    failed = lines[numbers[-1] - 1].strip() if numbers and numbers[-1] <= len(lines) else ""
    last = (stderr.strip().splitlines() or [""])[-1]
    value = last.partition("AssertionError:")[2].strip()
    return failed or "(unknown)", value[:OUTPUT_CHARS] or "(unknown)"


class ExampleWriter:
    # Repairs after the first program: three runs at most, and five LLM calls (each repair that
    # repeats a program is followed by a new sample).
    MAX_FIXES = 2

    def __init__(
        self,
        *,
        client: LLMClient,
        sandbox: Sandbox,
        limits: Limits,
        max_fixes: int = MAX_FIXES,
        cancelled=lambda: False,
    ) -> None:
        self.client = client
        self.sandbox = sandbox
        self.limits = limits
        self.max_fixes = max_fixes
        self.cancelled = cancelled

    def _ask(self, prompt: Prompt, *, temperature: float = 0.0, **values: str) -> str:
        answer = self.client.complete(
            prompt.messages(**values),
            purpose="example",
            prompt_version=prompt.id,
            max_tokens=MAX_TOKENS,
            temperature=temperature,
        )
        return answer.text

    def write(self, unit: FoundUnit, code_dir: Path) -> Outcome:
        """Write, run and repair until a program runs to its checks, or give up saying why.
        Never raises for the LLM or the sandbox: their failures are the outcome's error."""
        started = time.perf_counter()
        outcome = Outcome(status="error")
        where = "\n".join(
            filter(
                None,
                [
                    f"The code is in a repository, importable as `{unit.import_line}`: "
                    "import it that way.",
                    describe(unit.facts, unit.qualname.split(".")[0], unit.module),
                ],
            )
        )
        code = code_block(unit.code[:CODE_CHARS])
        names = set(unit.facts.defined)

        def program_of(answer: str) -> str:
            program = runnable_test(answer, unit)
            if cut_off(answer):
                program = whole_statements(program)
            program = import_missing(program, unit.module, names)
            return show_compared_values(program)

        skeleton = unit.skeleton()

        def write_anew(temperature: float = 0.0) -> str:
            answer = self._ask(
                EXAMPLE_WRITE, temperature=temperature, where=where, code=code, skeleton=skeleton
            )
            return program_of(answer)

        try:
            program = write_anew()
            tried: set[str] = set()
            for attempt in range(self.max_fixes + 1):
                tried.add(program.strip())
                if self.cancelled():
                    outcome.error = "cancelled"
                    break
                problem, output = check_example(program, unit), ""
                if not problem:
                    execution = self.sandbox.run(program, code_dir=code_dir, limits=self.limits)
                    outcome.attempts.append(_attempt(program, execution))
                    status = "error"
                    if ran_to_its_asserts(execution):
                        status = "passed" if execution.passed else "check_failed"
                        output = execution.stdout[-OUTPUT_CHARS:] or "(nothing)"
                    # The outcome keeps the best program so far: one whose check failed is
                    # worth more than a later correction that no longer runs.
                    if _RANK[status] >= _RANK[outcome.status]:
                        outcome.status, outcome.program = status, program
                        outcome.stdout, outcome.stderr = execution.stdout, execution.stderr
                    if status == "passed":
                        break
                    problem = outcome_of(execution)
                else:
                    outcome.attempts.append({"program": program, "outcome": problem})
                outcome.error = problem  # cleared below if a program ran to its checks
                if attempt == self.max_fixes:
                    break
                if output:  # it ran to a check that failed: correct it from what it printed
                    failed, value = failed_check(program, execution.stderr)
                    fixed = self._ask(
                        EXAMPLE_RECHECK,
                        where=where,
                        code=code,
                        program=program,
                        output=output,
                        failed=failed,
                        value=value,
                    )
                else:
                    fixed = self._ask(
                        EXAMPLE_FIX, where=where, code=code, program=program, error=problem[:1500]
                    )
                program = program_of(fixed)
                if program.strip() in tried:
                    program = write_anew(RESAMPLE_TEMPERATURE)
        except LLMError as exc:
            outcome.error = f"the LLM failed: {exc}"
        except SandboxUnavailable as exc:
            outcome.error = f"the sandbox cannot run here: {exc}"
        if outcome.status != "error":
            outcome.error = ""
        outcome.seconds = round(time.perf_counter() - started, 2)
        return outcome


def _attempt(program: str, execution: Execution) -> dict:
    return {
        "program": program,
        "outcome": outcome_of(execution),
        "status": execution.status,
        "seconds": round(execution.duration_s, 2),
    }
