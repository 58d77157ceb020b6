"""/api/examples: run what you found. Asking answers at once (202) with the example's state;
the example is written and run on a worker, and GET shows how far it got."""

from __future__ import annotations

from ninja import Router, Schema

from accounts.api_auth import ErrorOut, caller
from tryouts.presenters import example_as_dict
from tryouts.selectors import example_for_caller, unit_for_caller
from tryouts.services import (
    ExampleError,
    ExampleRefused,
    example_cancel,
    example_request,
)

router = Router(tags=["examples"])


class ExampleIn(Schema):
    unit: int  # a search result's `unit_id`


class ExampleOut(Schema):
    id: int
    repository: str
    path: str
    qualname: str
    status: str
    finished: bool
    written_by_model: str
    program: str
    output: str
    stderr_tail: str
    check_passed: bool
    error: str
    attempts: int
    sandbox: str
    seconds: float


def _caller_or_401(request):
    user, ok = caller(request)
    return user, (None if ok else (401, {"detail": "invalid API token"}))


@router.post(
    "",
    response={
        200: ExampleOut,
        202: ExampleOut,
        400: ErrorOut,
        401: ErrorOut,
        404: ErrorOut,
        429: ErrorOut,
    },
)
def api_example_request(request, body: ExampleIn):
    """Write and run an example of a found unit (an LLM writes a short program that imports it,
    calls it and checks what came back; the sandbox runs it). 202 while it is being made,
    200 when a finished one for this version of the unit and this model is stored."""
    user, refused = _caller_or_401(request)
    if refused:
        return refused
    unit = unit_for_caller(unit_id=body.unit, user=user)
    if unit is None:
        return 404, {"detail": f"no indexed unit {body.unit} in the repositories you can see"}
    try:
        example = example_request(unit=unit, user=user, request=request)
    except ExampleRefused as exc:
        return exc.status, {"detail": str(exc)}
    except ExampleError as exc:
        return 400, {"detail": str(exc)}
    return (200 if example.is_finished else 202), example_as_dict(example)


def _example_or_error(request, example_id: int):
    user, refused = _caller_or_401(request)
    if refused:
        return None, refused
    example = example_for_caller(example_id=example_id, user=user)
    if example is None:
        return None, (404, {"detail": f"no example {example_id}"})
    return example, None


@router.get("/{example_id}", response={200: ExampleOut, 401: ErrorOut, 404: ErrorOut})
def api_example(request, example_id: int):
    """An example's state: queued, running, then passed, check_failed, error or cancelled."""
    example, error = _example_or_error(request, example_id)
    return error or (200, example_as_dict(example))


@router.post("/{example_id}/cancel", response={200: ExampleOut, 401: ErrorOut, 404: ErrorOut})
def api_example_cancel(request, example_id: int):
    """Stop an example that has not finished."""
    example, error = _example_or_error(request, example_id)
    if error:
        return error
    if not example.is_finished:
        example = example_cancel(example=example)
    return 200, example_as_dict(example)
