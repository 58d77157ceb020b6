"""Execution-scored rows, xCodeEval's rule: a row carries a test program instead of (or besides)
gold units, and a result counts as relevant when the program passes against it in the sandbox.

The program defines `check(candidate)` and asserts what the right code does; the harness
imports each result from a read-only copy of its repository (as indexed), hands it over, and
the run's exit status decides. Every execution is counted by how it ended, so a report says how
many candidates ran, passed, failed and timed out, and why the others did not run.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from indexing.checkout import materialize, module_of
from indexing.models import CodeUnit, Repository
from sandbox import get_sandbox, limits
from sandbox.base import Execution, Limits, Sandbox, SandboxUnavailable

# Kinds a test can be handed: a module-level block has no object to import.
RUNNABLE_KINDS = (CodeUnit.Kind.FUNCTION, CodeUnit.Kind.METHOD, CodeUnit.Kind.CLASS)
HARNESS = """\
import importlib

{test}


def _candidate():
    found = importlib.import_module({module!r})
    for part in {qualname!r}.split("."):
        found = getattr(found, part)
    return found


check(_candidate())
"""


def outcome(execution: Execution) -> str:
    """passed, failed, timed_out (the wall-clock limit) or stopped (another limit)."""
    if execution.passed:
        return "passed"
    if execution.status == "stopped":
        return "timed_out" if execution.limit == "wall-clock" else "stopped"
    return "failed"


class ExecutionJudge:
    """Runs tests against results, once per (test, unit), with each repository written out
    once; counts every outcome in `tally` (and `skipped` for kinds that cannot be run,
    `unavailable` when the sandbox cannot start)."""

    def __init__(self, *, sandbox: Sandbox | None = None, run_limits: Limits | None = None):
        self.sandbox = sandbox or get_sandbox()
        self.limits = run_limits or limits()
        self.tally: Counter = Counter()
        self.trail: list[dict] = []
        self._stack = contextlib.ExitStack()
        self._checkouts: dict[int, tuple[Path, str]] = {}
        self._seen: dict[tuple[str, int], bool] = {}

    def __enter__(self) -> ExecutionJudge:
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def _checkout(self, repository: Repository) -> tuple[Path, str]:
        if repository.pk not in self._checkouts:
            root = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="rr-exec-")))
            prefix = materialize(repository=repository, target=root)
            self._checkouts[repository.pk] = (root, prefix)
        return self._checkouts[repository.pk]

    def passes(self, *, repository: Repository, unit: CodeUnit, test: str) -> bool:
        key = (test, unit.pk)
        if key in self._seen:
            return self._seen[key]
        if unit.kind not in RUNNABLE_KINDS:
            self.tally["skipped"] += 1
            self._seen[key] = False
            return False
        root, prefix = self._checkout(repository)
        program = HARNESS.format(
            test=test, module=module_of(unit.path, prefix), qualname=unit.qualname
        )
        try:
            execution = self.sandbox.run(program, code_dir=root, limits=self.limits)
        except SandboxUnavailable as exc:
            self.tally["unavailable"] += 1
            self.trail.append({"unit": unit.qualname, "outcome": "unavailable", "why": str(exc)})
            self._seen[key] = False
            return False
        ended = outcome(execution)
        self.tally["ran"] += 1
        self.tally[ended] += 1
        last = (execution.stderr.strip().splitlines() or [""])[-1][:200]
        self.trail.append(
            {"path": unit.path, "unit": unit.qualname, "outcome": ended, "last": last}
        )
        self._seen[key] = execution.passed
        return execution.passed


@contextlib.contextmanager
def execution_judge(needed: bool) -> Iterator[ExecutionJudge | None]:
    """A judge for a dataset with test rows; None (and no sandbox asked for) without."""
    if not needed:
        yield None
        return
    with ExecutionJudge() as judge:
        yield judge
