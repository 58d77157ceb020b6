"""`reporift search` as a client as good as the API: the API's rows, its filters, its
suggestions, and usage lines that name the command as typed."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from reporift.commands import run_command

pytestmark = pytest.mark.django_db


def search_json(capsys, *args: str) -> list[dict]:
    call_command("search", *args, "--json")
    return json.loads(capsys.readouterr().out)


def test_json_rows_are_the_api_rows(client, shop, capsys):
    rows = search_json(capsys, "shop", "split a csv line", "--k", "2")
    api = client.get("/api/search", {"repo": "shop", "q": "split a csv line", "k": 2}).json()
    # Every field the API gives (its whole code only on request), with the same values.
    for row, api_row in zip(rows, api["results"], strict=True):
        assert {key: row[key] for key in set(api_row) - {"code"}} == {
            key: value for key, value in api_row.items() if key != "code"
        }
    first = rows[0]
    assert first["qualname"] == "parse_csv_line" and first["rank"] == 1
    assert first["repository"] == "shop" and first["unit_id"] == api["results"][0]["unit_id"]
    assert first["reason"] and first["signature"].startswith("def parse_csv_line")
    excerpt = first["excerpt"]
    assert excerpt["start_line"] >= first["start_line"] and "def parse_csv_line" in excerpt["text"]


def test_filters_are_the_apis(shop, capsys):
    everything = search_json(capsys, "shop", "charge a card")
    assert {row["kind"] for row in everything} > {"class"}
    classes = search_json(capsys, "shop", "charge a card", "--kind", "class")
    assert classes and {row["kind"] for row in classes} == {"class"}
    paths = {row["path"] for row in everything}
    prefix = sorted(paths)[0].rsplit("/", 1)[0] + "/"
    under = search_json(capsys, "shop", "charge a card", "--files", prefix)
    assert under and all(row["path"].startswith(prefix) for row in under)
    assert len({row["path"] for row in under}) < len(paths)
    glob = search_json(capsys, "shop", "charge a card", "--files", "*/payments.py")
    assert glob and {row["path"].rsplit("/", 1)[-1] for row in glob} == {"payments.py"}


def test_exclude_tests(db, write_repo, capsys):
    from indexing.services import index_run_execute, index_run_start, repository_create

    root = write_repo(
        {
            "pkg/tax.py": "def invoice_tax(total):\n    return total * 0.2\n",
            "tests/test_tax.py": "def test_invoice_tax():\n    assert invoice_tax(10) == 2\n",
        }
    )
    repository = repository_create(name="tax", source=str(root))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert any(r["path"].startswith("tests/") for r in search_json(capsys, "tax", "invoice tax"))
    kept = search_json(capsys, "tax", "invoice tax", "--exclude-tests")
    assert kept and not any(r["path"].startswith("tests/") for r in kept)


def test_unknown_repository_suggests_a_close_name(shop):
    with pytest.raises(CommandError, match=r"no repository named 'shp'; did you mean 'shop'\?"):
        call_command("search", "shp", "charge a card")


def test_usage_names_the_command_as_typed(capsys):
    with pytest.raises(SystemExit) as exit:
        run_command(["search", "--help"])
    assert exit.value.code == 0
    help_text = capsys.readouterr().out
    assert help_text.startswith("usage: reporift search [-h]")
    for option in ("--k N", "--mode", "--files PATH", "--kind", "--exclude-tests", "--json"):
        assert option in help_text
    # Every option says what it does; Django's own options stay out of the way.
    assert "--k N                 how many results" in help_text
    assert "--settings" not in help_text and "--traceback" not in help_text
    with pytest.raises(SystemExit):
        run_command(["index", "--help"])
    assert capsys.readouterr().out.startswith("usage: reporift index [-h]")


def test_parameters_are_checked_with_the_apis_words(client, shop, tmp_path):
    long = "charge a card " * 2500
    api = client.post(
        "/api/search", {"repo": ["shop"], "q": long}, content_type="application/json"
    ).json()
    with pytest.raises(CommandError) as refused:
        call_command("search", "shop", long)
    assert str(refused.value) == api["detail"] and "(it has " in api["detail"]
    # Checked before a working tree is indexed: nothing is read for a search that cannot run.
    with pytest.raises(CommandError, match="unknown language 'klingon'"):
        call_command("search", "charge a card", "--path", str(tmp_path), "--lang", "klingon")
    from indexing.models import Repository

    assert not Repository.objects.exclude(name="shop").exists()


def test_a_long_qualified_name_is_elided_for_people_and_whole_in_json(write_repo, client, capsys):
    from indexing.services import index_run_execute, index_run_start, repository_create
    from reporift.words import elide_middle

    source = ""
    for depth in range(20):
        source += "    " * depth + f"class NestedNamespaceLevel{depth}:\n"
    source += "    " * 20 + "def resolve_the_handler(self):\n" + "    " * 21 + "return 1\n"
    repository = repository_create(name="deep", source=str(write_repo({"deep.py": source})))
    index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    whole = search_json(capsys, "deep", "resolve_the_handler", "--k", "1")[0]["qualname"]
    assert len(whole) > 400 and whole.endswith(".resolve_the_handler")
    call_command("search", "deep", "resolve_the_handler", "--k", "1")
    line = capsys.readouterr().out.splitlines()[0]
    assert "…" in line and ".resolve_the_handler  (method)" in line and len(line) < 200
    page = client.get("/search/", {"repo": "deep", "q": "resolve_the_handler"}).content.decode()
    # Whole on hover, cut in the middle on the line.
    assert f'title="{whole}"' in page and f">{elide_middle(whole)}</span>" in page
