"""Examples of found code through the service, the page and the API, with a scripted LLM and
the real sandbox (the embedded model's own run is in test_embedded.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from indexing.selectors import active_units
from indexing.services import index_run_execute, index_run_start, repository_create
from tests.conftest import SAMPLE_FILES
from tests.support.scripted_llm import ScriptedLLM
from tests.tryouts.test_writer import GOOD
from tryouts import services
from tryouts.models import UnitExample
from tryouts.services import ExampleError, example_cancel, example_execute, example_request

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def llm(monkeypatch, settings):
    # Most tests here ask as anonymous callers: who may ask has its own test below.
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": True}
    scripted = ScriptedLLM(lambda prompt, message: GOOD)
    monkeypatch.setattr(services, "configured_model", lambda: "scripted")
    monkeypatch.setattr(services, "get_llm_client", lambda: scripted)
    return scripted


def slugify(repository):
    return active_units(repository=repository).get(qualname="slugify_title")


def test_asked_once_run_on_a_worker_then_answered_from_store(
    shop, llm, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        example = example_request(unit=slugify(shop))
    example.refresh_from_db()
    assert example.status == "passed", (example.error, example.attempts)
    assert example.model == "scripted" and example.prompt_version == "example_write.v2"
    assert "-> 'hello-world'" in example.stdout and example.sandbox == "bubblewrap"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again = example_request(unit=slugify(shop))
    assert again.pk == example.pk and not callbacks and len(llm.calls) == 1


def test_cancelled_before_it_ran_it_never_runs(shop, llm, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        example = example_request(unit=slugify(shop))
    assert example_cancel(example=example).status == "cancelled"
    assert example_execute(example_id=example.pk).status == "cancelled" and not llm.calls
    with django_capture_on_commit_callbacks(execute=True):  # asked again: it runs
        assert example_request(unit=slugify(shop)).pk == example.pk
    example.refresh_from_db()
    assert example.status == "passed"


def test_a_unit_that_changed_and_a_module_block(shop, llm, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        example = example_request(unit=slugify(shop))
    UnitExample.objects.filter(pk=example.pk).update(code_sha256="0" * 64)
    assert example_execute(example_id=example.pk).error == "the unit changed or is gone"
    block = active_units(repository=shop).filter(kind="module").first()
    if block is not None:
        with pytest.raises(ExampleError, match="functions, methods and classes"):
            example_request(unit=block)


def test_page_button_polling_and_cancel(client, shop, llm, django_capture_on_commit_callbacks):
    unit = slugify(shop)
    page = client.get("/search/", {"repo": "shop", "q": "slug"}).content.decode()
    assert f'hx-post="/examples/units/{unit.pk}/"' in page and "run an example" in page
    with django_capture_on_commit_callbacks(execute=False):
        queued = client.post(f"/examples/units/{unit.pk}/").content.decode()
    example = UnitExample.objects.get()
    assert "queued" in queued and f'hx-get="/examples/{example.pk}/"' in queued
    assert "every 2s" in queued and "cancel" in queued
    cancelled = client.post(f"/examples/{example.pk}/cancel/").content.decode()
    assert "cancelled" in cancelled and "every 2s" not in cancelled
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/examples/units/{unit.pk}/")
    done = client.get(f"/examples/{example.pk}/").content.decode()
    assert "its check passed" in done and "written by the model <code>scripted</code>" in done
    assert "hello-world" in done


def test_api_and_visibility(client, shop, llm, write_repo, django_capture_on_commit_callbacks):
    unit = slugify(shop)
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert asked.status_code == 202, asked.content
    state = client.get(f"/api/examples/{asked.json()['id']}").json()
    assert state["status"] == "passed" and state["check_passed"] is True
    assert state["written_by_model"] == "scripted" and "hello-world" in state["output"]
    finished = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert finished.status_code == 200
    hidden = repository_create(name="hidden", source=str(write_repo(SAMPLE_FILES)), is_public=False)
    index_run_execute(run=index_run_start(repository=hidden, enqueue=False))
    secret = slugify(hidden)
    refused = client.post("/api/examples", {"unit": secret.pk}, content_type="application/json")
    assert refused.status_code == 404
    assert client.post(f"/examples/units/{secret.pk}/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_mcp_run_example_waits_for_the_worker(shop, llm, settings):
    import asyncio

    from search.mcp_server import build_server

    settings.REPORIFT = {**settings.REPORIFT, "EAGER_IN_THREAD": True}  # a worker beside it
    server = build_server(lambda ctx: None)
    arguments = {"repository": "shop", "qualname": "slugify_title", "wait_s": 60}
    _, example = asyncio.run(server.call_tool("run_example", arguments))
    assert example["finished"] and example["check_passed"], example
    assert example["written_by_model"] == "scripted" and "hello-world" in example["output"]
    with pytest.raises(Exception, match="no unit 'nothing_here' in shop"):
        asyncio.run(
            server.call_tool("run_example", {"repository": "shop", "qualname": "nothing_here"})
        )


def test_an_example_whose_worker_died_runs_again(shop, llm, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    with django_capture_on_commit_callbacks(execute=False):
        example = example_request(unit=slugify(shop))
    recent = timezone.now() - timedelta(seconds=30)
    UnitExample.objects.filter(pk=example.pk).update(status="running", started_at=recent)
    # Claimed a moment ago: a second delivery of the task leaves it to its worker.
    assert example_execute(example_id=example.pk).status == "running" and not llm.calls
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert example_request(unit=slugify(shop)).status == "running"
    assert not callbacks
    long_ago = timezone.now() - timedelta(hours=2)
    UnitExample.objects.filter(pk=example.pk).update(started_at=long_ago)
    assert example_execute(example_id=example.pk).status == "passed"  # redelivered: it runs


def test_new_runs_count_against_the_llm_budget(client, shop, llm, settings):
    settings.REPORIFT = {
        **settings.REPORIFT,
        "LIMITS": {**settings.REPORIFT["LIMITS"], "FULL_RATE_PER_MINUTE": 1},
    }
    unit = slugify(shop)
    first = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert first.status_code in (200, 202)
    # Asking for the stored example again costs nothing.
    again = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert again.status_code in (200, 202)
    other = active_units(repository=shop).get(qualname="parse_csv_line")
    refused = client.post("/api/examples", {"unit": other.pk}, content_type="application/json")
    assert refused.status_code == 429 and "too many examples" in refused.json()["detail"]
    assert not UnitExample.objects.filter(qualname="parse_csv_line").exists()
    page = client.post(f"/examples/units/{other.pk}/")
    assert page.status_code == 429 and "too many examples" in page.content.decode()


def test_examples_are_for_signed_in_users_unless_opened(
    client, shop, llm, settings, django_user_model, django_capture_on_commit_callbacks
):
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": False}
    unit = slugify(shop)
    refused = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert refused.status_code == 401
    assert refused.json()["detail"].startswith("sign in for examples")
    assert not llm.calls
    page = client.get("/search/", {"repo": "shop", "q": "slugify a title"}).content.decode()
    assert "sign in to run an example" in page and 'class="run-example" hx-post' not in page
    client.force_login(django_user_model.objects.create_user("u", password="pw-123456789"))
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post("/api/examples", {"unit": unit.pk}, content_type="application/json")
    assert asked.status_code in (200, 202)
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": True}

    page = Client().get("/search/", {"repo": "shop", "q": "slugify a title"}).content.decode()
    assert 'class="run-example" hx-post' in page
