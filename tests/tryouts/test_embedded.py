"""An example of a found fixture function, end to end with the real embedded model: requested as
the page does, written by Qwen2.5-Coder-0.5B on loopback, run in bubblewrap, stored."""

from __future__ import annotations

import pytest

from agents.llm import get_llm_client
from indexing.selectors import active_units
from tryouts.models import UnitExample
from tryouts.services import example_request

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_embedded_model_writes_and_runs_an_example(
    shop, settings, django_capture_on_commit_callbacks
):
    settings.REPORIFT["LLM"]["BASE_URL"] = ""
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": True}
    get_llm_client.cache_clear()
    unit = active_units(repository=shop).get(qualname="slugify_title")
    with django_capture_on_commit_callbacks(execute=True):
        example = example_request(unit=unit)
    example.refresh_from_db()
    assert example.model == "qwen2.5-coder-0.5b-instruct"
    assert example.status in (
        UnitExample.Status.PASSED,
        UnitExample.Status.CHECK_FAILED,
        UnitExample.Status.ERROR,
    )
    # Whatever the model wrote, something ran in the sandbox and its trail is kept; a failure
    # says why.
    assert example.attempts and example.sandbox == "bubblewrap"
    assert example.status != UnitExample.Status.ERROR or example.error
    if example.status == UnitExample.Status.PASSED:
        assert "slugify_title" in example.program and example.stdout
