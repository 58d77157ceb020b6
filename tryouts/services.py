"""Examples of found code: asking for one (cached per unit version and model), running it on a
worker, cancelling it. The web process only records the request; the LLM and the sandbox run
in a Celery task, or in a thread beside the request without a broker."""

from __future__ import annotations

import hashlib
import tempfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from agents.errors import LLMError
from agents.llm import LLMClient, configured_model, get_llm_client
from agents.prompts import EXAMPLE_WRITE
from indexing.checkout import materialize, module_of
from indexing.models import CodeUnit
from indexing.selectors import active_units
from reporift.dispatch import send_task
from sandbox import get_sandbox, limits
from sandbox.base import Sandbox
from search.ratelimit import llm_refusal
from tryouts.models import UnitExample
from tryouts.writer import ExampleWriter, FoundUnit, Outcome

Status = UnitExample.Status


class ExampleError(Exception):
    """An example that cannot be asked for: the message is meant for the user."""


class ExampleRefused(ExampleError):
    """The caller may not spend the LLM now: `status` 401, sign in first; 429, the budget is
    spent and `retry_after_s` says when to ask again."""

    def __init__(self, message: str, retry_after_s: int, status: int = 429) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
        self.status = status


def code_sha256(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", errors="surrogatepass")).hexdigest()


def _stale_before():
    """A run claimed before this is taken to have died with its worker: a run is bounded by
    its LLM calls (the first try, each repair, and a new sample where a repair repeats a
    program) and sandbox runs, plus a margin."""
    llm_s = settings.REPORIFT["LLM"]["TIMEOUT_S"]
    sandbox_s = limits().wall_s
    runs = ExampleWriter.MAX_FIXES + 1
    bound = (2 * runs - 1) * llm_s + runs * sandbox_s + 60
    return timezone.now() - timedelta(seconds=bound)


def _claimable() -> Q:
    """Queued, or claimed by a worker that died (acks_late delivers the task again)."""
    return Q(status=Status.QUEUED) | Q(status=Status.RUNNING, started_at__lt=_stale_before())


def _retry_on_request(example: UnitExample) -> bool:
    """Asked again, a cancelled example, one the LLM or sandbox could not serve, or one whose
    worker died runs again; a finished one is the answer (it is what the model writes for
    this code)."""
    if example.status == Status.CANCELLED:
        return True
    if example.status == Status.RUNNING:
        return example.started_at is not None and example.started_at < _stale_before()
    return example.status == Status.ERROR and not example.attempts


def example_request(*, unit: CodeUnit, user=None, request=None) -> UnitExample:
    """The example of `unit` with the configured model: the stored one, or a new one queued.
    Only a new run counts against the caller's LLM budget (`request` names the caller to the
    rate limiter; none: a trusted caller such as a benchmark), the same buckets as full-mode
    searches: asking for a stored example, or polling, costs nothing."""
    if unit.kind == CodeUnit.Kind.MODULE:
        raise ExampleError("examples are written for functions, methods and classes")
    if unit.language != "python":
        # The writer's prompts and the sandbox run Python programs.
        raise ExampleError(f"examples run Python code only; {unit.qualname} is {unit.language}")
    try:
        model = configured_model()
    except LLMError as exc:
        raise ExampleError(f"examples need an LLM: {exc}") from exc
    run = unit.repository.active_run
    key = {
        "repository": unit.repository,
        "path": unit.path,
        "qualname": unit.qualname,
        "code_sha256": code_sha256(unit.code),
        "commit_sha": (run.commit_sha if run else "") or "",
        "model": model,
    }
    with transaction.atomic():
        example, created = UnitExample.objects.select_for_update().get_or_create(
            **key,
            defaults={"prompt_version": EXAMPLE_WRITE.id, "requested_by": _user_or_none(user)},
        )
        if not created and not _retry_on_request(example):
            return example
        if request is not None:
            refusal = llm_refusal(request, user, work="examples", instead="try again later")
            if refusal is not None:
                if created:
                    example.delete()
                raise ExampleRefused(refusal.message, refusal.retry_after_s, refusal.status)
        if not created:
            example.status, example.error, example.attempts = Status.QUEUED, "", []
            example.finished_at = None
            example.save(update_fields=["status", "error", "attempts", "finished_at"])
        transaction.on_commit(lambda: _send(example.pk))
    return example


def _user_or_none(user):
    return user if user is not None and getattr(user, "is_authenticated", False) else None


def _send(example_id: int) -> None:
    send_task("tryouts.tasks.example_task", example_id)


def example_cancel(*, example: UnitExample) -> UnitExample:
    """Stop an example that has not finished: a running one stops before its next step."""
    UnitExample.objects.filter(pk=example.pk, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.CANCELLED, error="cancelled", finished_at=timezone.now()
    )
    example.refresh_from_db()
    return example


def example_execute(
    *, example_id: int, client: LLMClient | None = None, sandbox: Sandbox | None = None
) -> UnitExample | None:
    """Write and run the example (a worker's task). Claims it first: a second delivery of the
    task, or a cancelled example, does nothing."""
    claimed = UnitExample.objects.filter(_claimable(), pk=example_id).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    example = UnitExample.objects.select_related("repository").filter(pk=example_id).first()
    if not claimed or example is None:
        return example
    unit = (
        active_units(repository=example.repository)
        .filter(path=example.path, qualname=example.qualname)
        .first()
    )
    if unit is None or code_sha256(unit.code) != example.code_sha256:
        return _finish(example, Outcome(status="error", error="the unit changed or is gone"))
    try:
        client = client or get_llm_client()
        sandbox = sandbox or get_sandbox()
    except LLMError as exc:
        return _finish(example, Outcome(status="error", error=f"the LLM failed: {exc}"))
    writer = ExampleWriter(
        client=client,
        sandbox=sandbox,
        limits=limits(),
        cancelled=lambda: UnitExample.objects.filter(
            pk=example_id, status=Status.CANCELLED
        ).exists(),
    )
    with tempfile.TemporaryDirectory(prefix="reporift-example-") as tmp:
        prefix = materialize(repository=example.repository, target=Path(tmp))
        source = Path(tmp, prefix, unit.path)
        found = FoundUnit(
            unit.code,
            module_of(unit.path, prefix),
            unit.qualname,
            module_source=source.read_text(errors="replace") if source.is_file() else "",
        )
        outcome = writer.write(found, Path(tmp))
    example.sandbox = sandbox.name
    return _finish(example, outcome)


def _finish(example: UnitExample, outcome: Outcome) -> UnitExample:
    fields = {
        "status": outcome.status,
        "program": outcome.program,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "error": outcome.error,
        "attempts": outcome.attempts,
        "seconds": outcome.seconds,
        "sandbox": example.sandbox,
        "finished_at": timezone.now(),
    }
    # A cancel that came while it ran wins: the user asked for nothing more.
    UnitExample.objects.filter(pk=example.pk, status=Status.RUNNING).update(**fields)
    example.refresh_from_db()
    return example
