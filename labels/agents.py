"""CoSQA+'s test-driven labelling agents for one (query, code) pair.

    screener -> MATCH / NO MATCH: the label
             -> UNCLEAR (or an answer that cannot be read): test generator -> sandbox
                -> (it could not run: fixer, a bounded number of times) -> arbiter: the label

`method="judge"` is the single LLM judgement the agents are measured against. Every step's
answer, program and outcome goes into the pair's trail; an LLM error is the pair's error (the
run goes on and retries the pair when resumed), never a silent label.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from agents.errors import LLMError
from agents.llm import LLMClient
from agents.programs import (
    check_program,
    outcome_of,
    ran_to_its_asserts,
    runnable_test,
)
from agents.prompts import (
    LABEL_ARBITER,
    LABEL_FIX,
    LABEL_JUDGE,
    LABEL_SCREEN,
    LABEL_TEST,
    Prompt,
    code_block,
)
from agents.rerank import yes_probability
from sandbox.base import Limits, Sandbox, SandboxUnavailable

METHODS = ("agents", "judge")
_VERDICT = re.compile(r"verdict\s*[:\-]?\s*\**\s*(no[ _-]?match|match|unclear)", re.I)
_LEADING = re.compile(r"^\W*(no[ _-]?match|match|unclear)\b", re.I)
_REASON = re.compile(r"reason\s*[:\-]\s*(.+)", re.I)


@dataclass(frozen=True)
class Pair:
    query_id: str
    query: str
    code_id: str
    code: str
    # Repository code: the module that defines it and its top-level name there; a standalone
    # snippet has neither and is pasted above the test instead.
    module: str = ""
    name: str = ""


@dataclass(frozen=True)
class LabelConfig:
    method: str = "agents"
    max_fixes: int = 2
    code_chars: int = 3000
    # P(yes) at or above which a judgement (the judge's, the arbiter's) says relevant.
    threshold: float = 0.5
    # A small model answers MATCH to nearly everything when asked for a verdict in words, but
    # its P(yes) still ranks pairs: with a band, the screener is the judge's P(yes), sure above
    # the band, sure below it, and unclear (tested) inside it. Set per model (settings).
    screen_band: tuple[float, float] | None = None

    @classmethod
    def for_model(cls, model: str, method: str) -> LabelConfig:
        from agents.backends import model_settings

        choices = model_settings(model).get("LABEL", {})
        band = choices.get("SCREEN_BAND")
        return cls(
            method=method,
            threshold=choices.get("THRESHOLD", 0.5),
            screen_band=tuple(band) if band else None,
        )


def parse_screen(text: str) -> tuple[str, str]:
    """("match" | "no_match" | "unclear", reason); ValueError when no verdict is there."""
    found = _VERDICT.search(text) or _LEADING.search(text.strip())
    if not found:
        raise ValueError(f"no verdict in the screener's answer: {text[:200]!r}")
    word = re.sub(r"[\s_-]+", "", found.group(1).lower())
    verdict = {"nomatch": "no_match", "match": "match", "unclear": "unclear"}[word]
    reason = _REASON.search(text)
    return verdict, (reason.group(1).strip() if reason else "")[:300]


def yes_no(answer) -> float:
    """P(yes) from the first token's alternatives, else from the answer's first word; a
    ValueError when it is neither."""
    p = yes_probability(answer.first_token_logprobs)
    if p is not None:
        return p
    word = re.match(r"\W*(\w+)", answer.text or "")
    if word and word.group(1).lower() in ("yes", "no"):
        return 1.0 if word.group(1).lower() == "yes" else 0.0
    raise ValueError(f"neither Yes nor No: {answer.text[:100]!r}")


def interpretation_of(program: str) -> str:
    found = re.search(r"#\s*Interpretation:\s*(.+)", program)
    return found.group(1).strip()[:300] if found else ""


def assemble(program: str, pair: Pair, code_root: str) -> str:
    """The program the sandbox runs. A snippet goes above the test, after the test's own
    imports (a decorator or base class from a missing import must resolve when it is defined);
    repository code is imported from the read-only copy."""
    if pair.module:
        return f"import sys\nsys.path.insert(0, {code_root!r})\n\n{program}\n"
    lines = program.splitlines()
    imports = [ln for ln in lines if re.match(r"(import|from)\s+\w", ln)]
    rest = [ln for ln in lines if ln not in imports]
    return "\n".join([*imports, "", pair.code, "", *rest]) + "\n"


class Labeller:
    def __init__(
        self,
        *,
        client: LLMClient,
        sandbox: Sandbox | None,
        limits: Limits,
        config: LabelConfig,
        code_dir: Path | None = None,
        code_root: str = "/sandbox/code",
    ) -> None:
        if config.method not in METHODS:
            raise ValueError(f"method is one of {', '.join(METHODS)}, not {config.method!r}")
        if config.method == "agents" and sandbox is None:
            raise ValueError("the agents need a sandbox to run their tests in")
        self.client = client
        self.sandbox = sandbox
        self.limits = limits
        self.config = config
        self.code_dir = code_dir
        self.code_root = code_root

    def label(self, pair: Pair) -> dict:
        """The pair's trail entry: its label (None with an `error`) and every step."""
        started = time.perf_counter()
        trail: dict = {"query_id": pair.query_id, "code_id": pair.code_id}
        trail |= {"method": self.config.method, "label": None, "error": ""}
        try:
            if self.config.method == "judge":
                self._judge(pair, trail)
            else:
                self._agents(pair, trail)
        except (LLMError, SandboxUnavailable, ValueError, OSError) as exc:
            trail["label"] = None
            trail["error"] = f"{type(exc).__name__}: {exc}"[:500]
        trail["seconds"] = round(time.perf_counter() - started, 2)
        return trail

    # The steps ---------------------------------------------------------------------------

    def _ask(self, prompt: Prompt, max_tokens: int, logprobs: bool = False, **values: str):
        return self.client.complete(
            prompt.messages(**values),
            purpose="label",
            prompt_version=prompt.id,
            max_tokens=max_tokens,
            top_logprobs=10 if logprobs else 0,
        )

    def _code(self, pair: Pair) -> str:
        return code_block(pair.code[: self.config.code_chars])

    def _where(self, pair: Pair) -> str:
        if pair.module:
            return (
                f"The code is in a repository, importable as `from {pair.module} import "
                f"{pair.name.split('.')[0]}`: import it that way."
            )
        return "The code is already defined above your program: call it directly."

    def _p_yes(self, pair: Pair) -> tuple[float, str]:
        answer = self._ask(LABEL_JUDGE, 1, logprobs=True, query=pair.query, code=self._code(pair))
        return yes_no(answer), answer.text[:200]

    def _judge(self, pair: Pair, trail: dict) -> None:
        p_yes, raw = self._p_yes(pair)
        trail["judge"] = {"p_yes": round(p_yes, 4), "raw": raw}
        trail["label"], trail["decided_by"] = int(p_yes >= self.config.threshold), "judge"

    def _screen(self, pair: Pair) -> dict:
        if self.config.screen_band is not None:
            low, high = self.config.screen_band
            p_yes, raw = self._p_yes(pair)
            verdict = "match" if p_yes >= high else "no_match" if p_yes <= low else "unclear"
            reason = f"P(yes) {p_yes:.3f} against the band [{low}, {high}]"
            return {"raw": raw, "verdict": verdict, "reason": reason, "p_yes": round(p_yes, 4)}
        answer = self._ask(LABEL_SCREEN, 60, query=pair.query, code=self._code(pair))
        screen = {"raw": answer.text[:500]}
        try:
            screen["verdict"], screen["reason"] = parse_screen(answer.text)
        except ValueError as exc:
            screen["verdict"], screen["error"] = "unclear", str(exc)
        return screen

    def _agents(self, pair: Pair, trail: dict) -> None:
        screen = self._screen(pair)
        trail["screener"] = screen
        if screen["verdict"] != "unclear":
            trail["label"] = int(screen["verdict"] == "match")
            trail["decided_by"] = "screener"
            return
        test = self._test(pair)
        trail["test"] = test
        last = test["attempts"][-1] if test["attempts"] else None
        outcome = last["outcome"] if last else "no usable test program: " + test["problem"]
        answer = self._ask(
            LABEL_ARBITER,
            1,
            logprobs=True,
            query=pair.query,
            code=self._code(pair),
            interpretation=test["interpretation"] or "no interpretation stated",
            program=code_block(last["program"] if last else "")[:4000],
            outcome=outcome,
        )
        p_yes = yes_no(answer)
        trail["arbiter"] = {"p_yes": round(p_yes, 4), "outcome": outcome}
        trail["label"], trail["decided_by"] = int(p_yes >= self.config.threshold), "arbiter"

    def _test(self, pair: Pair) -> dict:
        """Generate a test, run it, and let the fixer repair what stopped it from running."""
        answer = self._ask(
            LABEL_TEST, 300, where=self._where(pair), query=pair.query, code=self._code(pair)
        )
        program = runnable_test(answer.text, pair)
        test: dict = {"interpretation": interpretation_of(answer.text), "attempts": []}
        test |= {"executable": False, "problem": ""}
        for attempt in range(self.config.max_fixes + 1):
            problem = check_program(program, pair)
            if not problem:
                execution = self.sandbox.run(
                    assemble(program, pair, self.code_root),
                    code_dir=self.code_dir,
                    limits=self.limits,
                )
                test["attempts"].append(
                    {
                        "program": program,
                        "outcome": outcome_of(execution),
                        "execution": execution.as_dict(),
                    }
                )
                if ran_to_its_asserts(execution):
                    test["executable"] = True
                    return test
                problem = outcome_of(execution)
            test["problem"] = problem
            if attempt == self.config.max_fixes:
                break
            fixed = self._ask(
                LABEL_FIX,
                300,
                where=self._where(pair),
                query=pair.query,
                code=self._code(pair),
                program=code_block(program),
                error=problem,
            )
            program = runnable_test(fixed.text, pair)
            test["interpretation"] = test["interpretation"] or interpretation_of(fixed.text)
        return test
