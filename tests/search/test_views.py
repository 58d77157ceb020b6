import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from indexing.models import Repository
from indexing.services import index_run_execute, index_run_start, repository_create

pytestmark = pytest.mark.django_db


def test_search_page_shows_ranked_highlighted_results(client, shop):
    page = client.get("/search/", {"repo": "shop", "q": "retry failed http calls"}).content.decode()
    assert page.index('data-qualname="retry_http_call"') < page.index(
        'data-qualname="PaymentGateway.charge"'
    )
    assert "shop/payments.py:5\u201312" in page
    assert 'class="linenos"' in page and ">5<" in page  # line numbers start at the unit's line
    # Streams in words, with their meaning (and internal name) on hover.
    assert ">code meaning</span>" in page and "meaning of the code (S1)" in page


def test_search_page_filters_and_shareable_url(client, shop):
    page = client.get(
        "/search/", {"repo": "shop", "q": "slug", "kind": "class", "path": "shop/"}
    ).content.decode()
    assert 'data-qualname="PaymentGateway"' in page
    assert 'data-qualname="slugify_title"' not in page
    assert 'value="shop/"' in page  # the form keeps the filters, so the URL can be shared


def test_search_page_empty_and_error_states(client, shop):
    assert "results" not in client.get("/search/", {"repo": "shop"}).content.decode().lower()
    long_query = client.get("/search/", {"repo": "shop", "q": "x" * 32_001}).content.decode()
    assert "the query is longer than 32,000 characters (it has 32,001)" in long_query


def test_code_is_escaped(client, write_repo):
    evil = (
        'def evil():\n    """<script>alert("doc")</script>"""\n'
        '    return "<img src=x onerror=alert(1)>"\n'
    )
    repository = repository_create(name="evil", source=str(write_repo({"evil.py": evil})))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    page = client.get("/search/", {"repo": "evil", "q": "alert"}).content.decode()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert '&lt;script&gt;alert("doc")&lt;/script&gt;' in page  # shown, as text


def test_new_repository_needs_login(client):
    response = client.get("/repos/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_upload_archive_indexes(
    client, django_user_model, tmp_path, write_repo, django_capture_on_commit_callbacks
):
    import shutil

    from tests.conftest import SAMPLE_FILES

    root = write_repo(SAMPLE_FILES)
    archive = shutil.make_archive(str(tmp_path / "shop"), "gztar", root_dir=root)
    user = django_user_model.objects.create_user("ana", password="pw-123456789")
    client.force_login(user)
    with open(archive, "rb") as fh, django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/repos/new/",
            {
                "name": "uploaded",
                "archive": SimpleUploadedFile("shop.tar.gz", fh.read()),
                "is_public": "on",
            },
        )
    assert response.status_code == 302
    repository = Repository.objects.get(name="uploaded")
    assert repository.owner == user
    assert repository.active_run.units_total == 7


def test_upload_rejects_wrong_type(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("bo", password="pw-123456789"))
    response = client.post(
        "/repos/new/", {"name": "x", "archive": SimpleUploadedFile("x.rar", b"junk")}
    )
    assert response.status_code == 200
    assert ".zip" in response.content.decode()
    assert not Repository.objects.filter(name="x").exists()


def test_api_search(client, shop):
    response = client.get("/api/search", {"repo": "shop", "q": "charge a credit card", "k": 3})
    assert response.status_code == 200
    body = response.json()
    first = body["results"][0]
    assert first["qualname"] == "PaymentGateway.charge"
    assert first["code"] is None  # only when asked for: the excerpt answers
    assert body["mode_used"] == "fast"
    for result in body["results"]:
        excerpt = result["excerpt"]
        assert result["reason"]
        assert result["start_line"] <= excerpt["start_line"] <= excerpt["end_line"]
        assert excerpt["end_line"] <= result["end_line"]
        assert excerpt["text"]
    assert "charge" in first["excerpt"]["text"]
    asked = client.get(
        "/api/search", {"repo": "shop", "q": "charge a credit card", "k": 3, "code": "true"}
    ).json()
    assert asked["results"][0]["code"].startswith("def charge")


def test_api_search_errors(client, shop):
    assert client.get("/api/search", {"repo": "nope", "q": "x"}).status_code == 404
    assert client.get("/api/search", {"repo": "shop", "q": ""}).status_code == 400
    assert client.get("/api/search", {"repo": "shop", "q": "x", "k": 1000}).status_code == 400


def test_api_openapi_schema(client):
    schema = client.get("/api/openapi.json").json()
    assert "/api/search" in schema["paths"] and "/api/repos" in schema["paths"]


def test_api_index_needs_auth_then_indexes_git_url(
    client, django_user_model, write_repo, django_capture_on_commit_callbacks
):
    from tests.conftest import SAMPLE_FILES, git_commit_all

    origin = write_repo(SAMPLE_FILES)
    git_commit_all(origin)
    assert client.post("/api/repos", {"name": "g", "git_url": origin.as_uri()}).status_code == 401
    client.force_login(django_user_model.objects.create_user("cy", password="pw-123456789"))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/repos", {"name": "g", "git_url": origin.as_uri()})
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"  # accepted; it runs once the request commits
    run = client.get("/api/repos/g/run").json()
    assert run["status"] == "succeeded" and run["units_total"] == 7


def test_cli_search_json_contract(shop, capsys):
    call_command("search", "shop", "split a csv line", "--k", "2", "--json")
    rows = json.loads(capsys.readouterr().out)
    # The contract's fields, among the API's that the rows carry too (tests/search/test_cli.py).
    contract = {"rank", "path", "qualname", "kind", "language", "start_line", "end_line"}
    assert len(rows) == 2 and all(contract | {"score", "streams"} <= set(r) for r in rows)
    assert rows[0]["language"] == "python"
    assert rows[0]["qualname"] == "parse_csv_line" and rows[0]["rank"] == 1
