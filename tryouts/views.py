"""The page's side of examples: a button on each result asks for one (htmx), the fragment
polls until it is finished, and a running one can be cancelled. Nothing here waits on the LLM."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_POST

from tryouts.selectors import example_for_caller, unit_for_caller
from tryouts.services import (
    ExampleError,
    ExampleRefused,
    example_cancel,
    example_request,
)


def _fragment(request, example=None, error: str = "", status: int = 200):
    return render(
        request, "tryouts/_example.html", {"example": example, "error": error}, status=status
    )


@require_POST
def example_start(request, unit_id: int):
    unit = unit_for_caller(unit_id=unit_id, user=request.user)
    if unit is None:
        raise Http404("no such unit")
    try:
        example = example_request(unit=unit, user=request.user, request=request)
    except ExampleRefused as exc:
        return _fragment(request, error=str(exc), status=exc.status)
    except ExampleError as exc:
        return _fragment(request, error=str(exc))
    return _fragment(request, example)


def example_state(request, example_id: int):
    example = example_for_caller(example_id=example_id, user=request.user)
    if example is None:
        raise Http404("no such example")
    return _fragment(request, example)


@require_POST
def example_stop(request, example_id: int):
    example = example_for_caller(example_id=example_id, user=request.user)
    if example is None:
        raise Http404("no such example")
    return _fragment(request, example_cancel(example=example))
