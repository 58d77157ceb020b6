"""Labelling a repository: plan (queries and candidates), then label every pair, resumably.

    label_run_execute(repository=..., out_dir=..., generate=20)

An interrupted run (Ctrl-C, a killed process) continues where it stopped when started again
with the same output directory: the plan is read back, decided pairs are kept, undecided and
failed ones are labelled again; the LLM's answers are cached, so the same pairs get the same
labels.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from django.utils import timezone

from agents.backends import model_settings
from agents.llm import LLMClient, get_llm_client
from indexing.checkout import materialize, module_of
from indexing.models import Repository
from labels import plan as P
from labels.agents import METHODS, LabelConfig, Labeller, Pair
from labels.dataset import append_trail, read_trail, write_json, write_pairs
from labels.models import LabelRun
from sandbox import get_sandbox, limits
from sandbox.base import Sandbox, SandboxUnavailable

PLAN_VERSION = 1


class LabelError(ValueError):
    """A label run that cannot start or go on; the message is for the operator."""


def build_plan(
    *,
    repository: Repository,
    client: LLMClient,
    queries_file: Path | None,
    generate: int,
    depth: int,
) -> dict:
    rejected: list[dict] = []
    if queries_file is not None:
        queries = P.load_queries(queries_file)
    else:
        if generate < 1:
            raise LabelError("give --queries FILE or --generate N (N >= 1)")
        queries = P.docstring_queries(repository=repository, n=(generate + 1) // 2)
        questions, rejected = P.question_queries(
            repository=repository,
            n=generate - len(queries),
            client=client,
            skip={q["origin"] for q in queries},
        )
        queries += questions
        if not queries:
            raise LabelError(f"{repository.name}: found no unit to ask about")
    codebase: dict[str, dict] = {}
    candidates: dict[str, list[str]] = {}
    for number, query in enumerate(queries):
        query.setdefault("query_id", f"q{number:04d}")
        units = P.candidates(repository=repository, query=query["query"], depth=depth)
        candidates[query["query_id"]] = [P.code_id(u) for u in units]
        for unit in units:
            codebase.setdefault(
                P.code_id(unit),
                {
                    "code_id": P.code_id(unit),
                    "code": unit.code,
                    "path": unit.path,
                    "qualname": unit.qualname,
                    "start_line": unit.start_line,
                    "end_line": unit.end_line,
                },
            )
    return {
        "version": PLAN_VERSION,
        "repository": repository.name,
        "generation": repository.active_run_id,
        "depth": depth,
        "queries": queries,
        "candidates": candidates,
        "codebase": list(codebase.values()),
        "rejected_questions": rejected,
    }


def _plan(out_dir: Path, repository: Repository, make: Callable[[], dict]) -> dict:
    path = out_dir / "plan.json"
    if path.exists():
        plan = json.loads(path.read_text(encoding="utf-8"))
        if plan.get("repository") != repository.name:
            raise LabelError(f"{out_dir} holds a label run of {plan.get('repository')!r}")
        if plan.get("generation") != repository.active_run_id:
            raise LabelError(
                f"{repository.name} was re-indexed since this label run started; "
                "label it into a new --out directory"
            )
        return plan
    plan = make()
    write_json(path, plan)
    write_json(
        out_dir / "query.json",
        [{k: q[k] for k in ("query_id", "query", "source") if k in q} for q in plan["queries"]],
    )
    write_json(out_dir / "codebase.json", plan["codebase"])
    return plan


def _sandbox_for(method: str, sandbox: Sandbox | None) -> Sandbox | None:
    if method != "agents":
        return None
    sandbox = sandbox or get_sandbox()
    reason = sandbox.unavailable_reason()
    if reason:
        raise LabelError(f"the agents' tests need a sandbox: {reason}")
    return sandbox


def label_run_execute(
    *,
    repository: Repository,
    out_dir: Path,
    queries_file: Path | None = None,
    generate: int = 0,
    depth: int = 20,
    method: str | None = None,
    client: LLMClient | None = None,
    sandbox: Sandbox | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LabelRun:
    if repository.active_run_id is None:
        raise LabelError(f"{repository.name} has no finished index to label")
    client = client or get_llm_client()
    # The model's measured better path when none is asked for (settings, per model).
    method = method or model_settings(client.model).get("LABEL", {}).get("METHOD", "agents")
    if method not in METHODS:
        raise LabelError(f"--method is one of {', '.join(METHODS)}")
    try:
        sandbox = _sandbox_for(method, sandbox)
    except SandboxUnavailable as exc:
        raise LabelError(str(exc)) from exc
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    run, _ = LabelRun.objects.get_or_create(
        out_dir=str(out_dir), defaults={"repository": repository, "method": method}
    )
    if run.repository_id != repository.pk:
        raise LabelError(f"{out_dir} belongs to a label run of {run.repository.name}")
    run.status, run.error, run.finished_at = LabelRun.Status.RUNNING, "", None
    run.method, run.model = method, client.model
    run.sandbox = sandbox.name if sandbox else ""
    run.save()
    try:
        plan = _plan(
            out_dir,
            repository,
            lambda: build_plan(
                repository=repository,
                client=client,
                queries_file=queries_file,
                generate=generate,
                depth=depth,
            ),
        )
        _label_pairs(run, plan, out_dir, client, sandbox, method, progress)
    except KeyboardInterrupt:
        _finish(run, LabelRun.Status.INTERRUPTED, "interrupted; run the same command to continue")
        raise
    except (LabelError, P.PlanError) as exc:
        _finish(run, LabelRun.Status.FAILED, str(exc))
        raise LabelError(str(exc)) from exc
    except Exception as exc:
        _finish(run, LabelRun.Status.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    _finish(run, LabelRun.Status.SUCCEEDED, "")
    return run


def _label_pairs(run, plan, out_dir, client, sandbox, method, progress) -> None:
    codebase = {c["code_id"]: c for c in plan["codebase"]}
    todo = [
        (query, cid) for query in plan["queries"] for cid in plan["candidates"][query["query_id"]]
    ]
    trail_path = out_dir / "trail.jsonl"
    trail = read_trail(trail_path)
    run.queries, run.pairs_total = len(plan["queries"]), len(todo)
    with tempfile.TemporaryDirectory(prefix="reporift-label-code-") as tmp:
        prefix = ""
        if method == "agents":
            prefix = materialize(repository=run.repository, target=Path(tmp))
        labeller = Labeller(
            client=client,
            sandbox=sandbox,
            limits=limits(),
            config=LabelConfig.for_model(client.model, method),
            code_dir=Path(tmp),
        )
        try:
            for number, (query, cid) in enumerate(todo, start=1):
                done = trail.get((query["query_id"], cid))
                if done is None or done.get("label") is None or done.get("method") != method:
                    unit = codebase[cid]
                    pair = Pair(
                        query_id=query["query_id"],
                        query=query["query"],
                        code_id=cid,
                        code=unit["code"],
                        module=module_of(unit["path"], prefix),
                        name=unit["qualname"],
                    )
                    entry = labeller.label(pair)
                    append_trail(trail_path, entry)
                    trail[(query["query_id"], cid)] = entry
                _count(run, trail, todo)
                if progress is not None:
                    progress(number, len(todo))
        finally:
            write_pairs(out_dir, plan, trail)
    if run.pair_errors:
        run.error = (
            f"{run.pair_errors} pair(s) could not be labelled (see trail.jsonl); "
            "run the same command again to retry them"
        )


def _count(run: LabelRun, trail: dict, todo: list) -> None:
    entries = [trail[(q["query_id"], c)] for q, c in todo if (q["query_id"], c) in trail]
    labelled = [e for e in entries if e.get("label") in (0, 1)]
    tests = [e["test"] for e in entries if e.get("test")]
    run.pairs_done = len(labelled)
    run.positives = sum(e["label"] for e in labelled)
    run.pair_errors = len(entries) - len(labelled)
    run.tests_run = len(tests)
    run.tests_executable = sum(bool(t.get("executable")) for t in tests)
    run.save()


def _finish(run: LabelRun, status: str, error: str) -> None:
    run.status = status
    run.error = error or run.error
    run.finished_at = timezone.now()
    run.save()
