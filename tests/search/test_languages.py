"""Search over a repository of every language RepoRift reads (tests/fixtures/polyglot, one small
file per language, with a README, a workflow, a minified bundle and a vendored file added): each
language's function found by its bare and its qualified name, as the language spells it; a doc
comment found by a sentence; sections of documentation and configuration; the language filter.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from search.filters import SearchFilters
from search.services import search

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"

EXTRA_FILES = {
    "py/ledger_tools.py": (
        "class Till:\n"
        "    def ring_up(self, cents):\n"
        "        self.entries.append(cents)\n\n\n"
        "def format_cents(cents):\n"
        '    return f"{cents / 100:.2f}"\n'
    ),
    "README.md": (
        "# Warehouse tools\n\nSmall programs for the shop floor.\n\n"
        "## Opening hours\n\nThe shop floor is staffed from eight in the morning until six "
        "in the evening on weekdays.\n"
    ),
    ".github/workflows/ci.yml": (
        "name: ci\non: [push]\n"
        "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/cache@v4\n"
        "        with:\n          path: ~/.cache/pip\n"
        "concurrency:\n  group: deploy-production\n  cancel-in-progress: true\n"
    ),
    "static/app.min.js": "var a=function(b){return b*2};" * 400 + "\n",
    # File-head documentation, each after a copyright line where a project would put one.
    "c/ledger.h": (
        "// Copyright 2024 The Depot Authors. All rights reserved.\n//\n"
        "// The pallet ledger records which pallet stands in which loading bay.\n\n"
        "#ifndef LEDGER_H\n#define LEDGER_H\nint ledger_count(void);\n#endif\n"
    ),
    "cpp/dock.h": (
        "// Copyright 2024 The Depot Authors.\n\n#pragma once\n\n"
        "// A Dock schedules the arrival of lorries at the unloading doors.\n\n"
        "namespace depot {\nclass DEPOT_EXPORT Dock {\n public:\n  void Reserve(int door);\n"
        "  int FreeDoors() const;\n};\n}  // namespace depot\n"
    ),
    "go/fleet/doc.go": (
        "// Package fleet assigns the vans to delivery districts each morning.\npackage fleet\n"
    ),
    "rust/rounds.rs": (
        "//! A round is the sequence of stops one courier drives in a single shift.\n\n"
        "pub fn stops() -> u32 {\n    0\n}\n"
    ),
    "haskell/Tariff.hs": (
        "{-|\nModule      : Tariff\nDescription : Postage charged for parcels by weight band.\n-}\n"
        "module Tariff where\n\nband :: Int -> Int\nband w = w `div` 10\n"
    ),
    "js/invoice.js": (
        "/**\n * @file Prints invoices as sheets for the accounts office.\n */\n\n"
        "function sheet(lines) {\n  return lines.join('\\n');\n}\n"
    ),
    "lua/rota.lua": (
        "--- Staff rota: who works which shift on the shop floor.\n-- @module rota\n\n"
        "local M = {}\nfunction M.today() return {} end\nreturn M\n"
    ),
    # Types declared only in doc comments (LuaLS, JSDoc).
    "lua/roster_types.lua": (
        "local M = {}\n\n--- @class (exact) Staff.Roster\n"
        "--- @field starts integer Minute of the day.\n"
        "--- @field till string Which till is staffed.\n\n"
        "function M.open(roster) return roster end\nreturn M\n"
    ),
    "js/lines.js": (
        "/**\n * @typedef {Object} CartLine\n * @property {string} sku\n"
        " * @property {number} qty\n */\n\n"
        "/** @param {CartLine} line */\nfunction lineTotal(line) {\n  return line.qty;\n}\n"
    ),
    "zig/scale.zig": (
        "//! Weighing scale driver that reads kilograms from the serial port.\n\n"
        "pub fn read() u32 {\n    return 0;\n}\n"
    ),
    # A feature documented in prose beside the code that does it.
    "docs/uploads.md": (
        "# Uploads\n\n## Retrying failed uploads\n\nAn upload that fails is sent again up to "
        "three times, with a growing pause between the attempts.\n\n## Configuration\n\n"
        "Set `UPLOAD_RETRIES` in `settings.toml` to change how many times a failed upload is "
        "sent again.\n"
    ),
    "py/uploads.py": (
        "import time\n\n\ndef send_with_retries(send, payload, attempts=3):\n"
        "    for attempt in range(attempts):\n        try:\n            return send(payload)\n"
        "        except OSError:\n            time.sleep(2 ** attempt)\n"
        "    raise RuntimeError('upload failed')\n"
    ),
    "vendor/github.com/acme/retry/retry.go": "package retry\n\nfunc Again() {}\n",
    # A build's shared properties (MSBuild): where a .NET solution's version is set.
    "Directory.Version.props": (
        "<Project>\n  <PropertyGroup>\n    <VersionPrefix>4.3.2</VersionPrefix>\n"
        "  </PropertyGroup>\n</Project>\n"
    ),
}

# (language, bare name, qualified name as the language spells it, the unit's qualname)
DEFINITIONS = [
    ("python", "format_cents", "Till.ring_up", "Till.ring_up"),
    ("javascript", "roundShelfPrice", "Cart#addItem", "Cart.addItem"),
    ("typescript", "splitRoutePattern", "Router.register", "Router.register"),
    ("tsx", "cappedCount", "Badge.render", "Badge.render"),
    ("go", "ParseBinLabel", "Location.Describe", "Location.Describe"),
    ("java", "runningBalance", "Ledger#post", "Ledger.post"),
    ("kotlin", "fahrenheitToCelsius", "Thermostat.warmer", "Thermostat.warmer"),
    ("scala", "backoffDelay", "JobQueue.enqueue", "JobQueue.enqueue"),
    ("csharp", "RoundForTax", "Invoice.AddLine", "Invoice.AddLine"),
    ("php", "mask_address", "Mailer->send", "Mailer::send"),
    ("ruby", "slugify", "Slugger#unique_slug", "Slugger.unique_slug"),
    ("rust", "retry_after", "Bucket::take", "Bucket::take"),
    ("swift", "formatDuration", "Playlist.append", "Playlist.append"),
    ("c", "ring_read", "ring", "ring"),
    ("cpp", "nearly_equal", "Matrix::transpose", "Matrix::transpose"),
    ("elixir", "reserve", "Shop.Stock.low?/2", "Shop.Stock.low?/2"),
    ("haskell", "tokenize", "Pretty.pretty", "Pretty.pretty"),
    ("lua", "format_remaining", "Timer:expired", "Timer.expired"),
    ("bash", "prune_old_backups", "make_archive", "make_archive"),
    ("powershell", "Get-VersionPrefix", "Feed.Push", "Feed.Push"),
    ("zig", "clampSpeed", "Vec2.add", "Vec2.add"),
]


@pytest.fixture
def polyglot(tmp_path):
    """The fixture repository with the extra files, indexed (public, no owner)."""
    from indexing.services import index_run_execute, index_run_start, repository_create

    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    for relative, text in EXTRA_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    repository = repository_create(name="polyglot", source=str(root))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    repository.refresh_from_db()
    return repository


def first(repository, query: str, **filters):
    results = search(
        repository=repository, query=query, k=3, filters=SearchFilters(**filters)
    ).results
    assert results, query
    return results[0].unit


def test_every_language_finds_its_definitions_by_name(polyglot):
    from indexing.selectors import active_units

    languages = set(active_units(repository=polyglot).values_list("language", flat=True))
    assert {language for language, *_ in DEFINITIONS} <= languages
    missed = []
    for language, bare, qualified, qualname in DEFINITIONS:
        found = first(polyglot, bare)
        if (found.name.split("/")[0], found.language) != (bare, language):
            missed.append((bare, found.qualname, found.language))
        found = first(polyglot, qualified)
        # Haskell's class method and its instance's are both `Pretty.pretty`.
        if found.qualname.split("#")[0] != qualname or found.language != language:
            missed.append((qualified, found.qualname, found.language))
    assert missed == []


def test_types_declared_in_doc_comments_are_found_by_name(polyglot):
    roster = first(polyglot, "Staff.Roster")
    assert (roster.path, roster.qualname) == ("lua/roster_types.lua", "Staff.Roster")
    assert first(polyglot, "Roster").path == "lua/roster_types.lua"
    line = first(polyglot, "CartLine")
    assert line.path == "js/lines.js" and "CartLine" in line.defines


@pytest.mark.parametrize(
    "query, qualname",
    [
        ("split a warehouse label into its aisle and rack", "ParseBinLabel"),
        ("copy bytes out of the ring buffer", "ring_read"),
        ("convert a Fahrenheit reading to Celsius degrees", "fahrenheitToCelsius"),
        ("break an arithmetic expression into tokens", "tokenize"),
        ("reserve units of a product for an order", "Shop.Stock.reserve/3"),
        ("how long must a client wait before its next request", "retry_after"),
    ],
)
def test_a_doc_comment_is_found_by_a_sentence(polyglot, query, qualname):
    assert first(polyglot, query).qualname == qualname


def test_documentation_and_configuration_sections_are_found(polyglot):
    for languages in ((), ("markdown",)):
        readme = first(
            polyglot, "from what time of day is the shop floor staffed?", languages=languages
        )
        assert (readme.path, readme.qualname, readme.kind) == (
            "README.md",
            "Opening hours",
            "section",
        )
    for languages in ((), ("yaml",)):
        workflow = first(polyglot, "concurrency group for production deploys", languages=languages)
        assert (workflow.path, workflow.qualname) == (".github/workflows/ci.yml", "concurrency")


def test_minified_and_vendored_files_are_skipped_with_their_reason(polyglot):
    from indexing.selectors import active_units

    paths = set(active_units(repository=polyglot).values_list("path", flat=True))
    assert "static/app.min.js" not in paths
    assert not any(p.startswith("vendor/") for p in paths)
    warnings = polyglot.active_run.warnings
    assert any("minified" in w and "static/app.min.js" in w for w in warnings), warnings
    assert any("vendored" in w and "vendor/" in w for w in warnings), warnings


def test_the_language_filter_keeps_only_those_languages(polyglot):
    results = search(
        repository=polyglot,
        query="round a price or an amount",
        k=10,
        filters=SearchFilters(languages=("csharp", "javascript")),
    ).results
    assert results and {r.unit.language for r in results} <= {"csharp", "javascript"}
    assert {r.unit.qualname for r in results} >= {"Money.RoundForTax", "roundShelfPrice"}
    # A name typed as the query is found only in the languages asked for, too.
    assert (
        search(
            repository=polyglot,
            query="Ledger.post",
            k=3,
            filters=SearchFilters(languages=("java",)),
        )
        .results[0]
        .unit.path
        == "java/Ledger.java"
    )


def test_each_unit_is_highlighted_as_its_language(polyglot):
    from indexing.selectors import active_units
    from search.highlight import HighlightedUnit

    unit = active_units(repository=polyglot).get(qualname="Location.Describe")
    html, _ = HighlightedUnit(unit.code, unit.start_line, language=unit.language).whole()
    assert '<span class="kd">func</span>' in html  # Go's keyword, as Go's lexer marks it
    php = active_units(repository=polyglot).get(qualname="Mailer::send")
    html, _ = HighlightedUnit(php.code, php.start_line, language=php.language).whole()
    assert '<span class="nv">$to</span>' in html  # coloured without an opening `<?php`


def test_examples_are_refused_for_code_that_is_not_python(polyglot):
    from indexing.selectors import active_units
    from tryouts.services import ExampleError, example_request

    unit = active_units(repository=polyglot).get(qualname="Bucket::take")
    with pytest.raises(ExampleError, match="Python code only; Bucket::take is rust"):
        example_request(unit=unit)


def test_code_like_a_unit_puts_its_own_language_first(polyglot):
    from indexing.selectors import active_units
    from search.similar import code_query, similar_code

    unit = active_units(repository=polyglot).get(qualname="fahrenheitToCelsius")
    results = similar_code(repository=polyglot, query=code_query(unit=unit), k=5).results
    languages = [r.unit.language for r in results]
    assert languages[0] == "kotlin"
    assert languages == sorted(languages, key=lambda language: language != "kotlin")


def test_the_command_line_takes_languages(polyglot, capsys):
    import json

    from django.core.management import CommandError, call_command

    call_command("search", "polyglot", "round a price", "--lang", "cs,js", "--k", "5", "--json")
    rows = json.loads(capsys.readouterr().out)
    assert rows and {r["language"] for r in rows} <= {"csharp", "javascript"}
    with pytest.raises(CommandError, match="unknown language 'cobol'; RepoRift reads python"):
        call_command("search", "polyglot", "round a price", "--lang", "cobol")


def test_the_api_takes_languages_repeated_or_as_a_list(polyglot, client):
    for query in ("lang=cs&lang=js", "lang=csharp,javascript"):
        response = client.get(f"/api/search?repo=polyglot&q=round+a+price&k=5&{query}")
        assert response.status_code == 200, response.content
        rows = response.json()["results"]
        assert rows and {r["language"] for r in rows} <= {"csharp", "javascript"}
    refused = client.get("/api/search?repo=polyglot&q=round+a+price&lang=cobol")
    assert refused.status_code == 400
    assert "unknown language 'cobol'" in refused.content.decode()


def test_mcp_search_code_takes_languages(polyglot):
    import asyncio

    from mcp.server.fastmcp.exceptions import ToolError

    from search import mcp_actions
    from search.mcp_server import _caller_request, build_server

    tools = asyncio.run(build_server(lambda ctx: None).list_tools())
    schemas = {tool.name: tool.inputSchema["properties"] for tool in tools}
    assert "languages" in schemas["search_code"] and "languages" in schemas["find_similar_code"]
    arguments = {"repositories": ["polyglot"], "query": "round a price", "k": 5}
    scope = mcp_actions.reachable(None)
    found = mcp_actions.search(
        scope, None, _caller_request(None, None), {**arguments, "languages": ["rust", "zig"]}
    )
    assert found["results"] and {r["language"] for r in found["results"]} <= {"rust", "zig"}
    with pytest.raises(ToolError, match="unknown language 'cobol'"):
        mcp_actions.search(
            scope, None, _caller_request(None, None), {**arguments, "languages": ["cobol"]}
        )


@pytest.mark.parametrize(
    "query, path",
    [
        ("which pallet stands in which loading bay", "c/ledger.h"),
        ("schedules the arrival of lorries at the unloading doors", "cpp/dock.h"),
        ("assigns vans to delivery districts each morning", "go/fleet/doc.go"),
        ("the stops one courier drives in a single shift", "rust/rounds.rs"),
        ("postage charged for parcels by weight band", "haskell/Tariff.hs"),
        ("prints invoices as sheets for the accounts office", "js/invoice.js"),
        ("who works which shift on the shop floor", "lua/rota.lua"),
        ("weighing scale driver reading kilograms from the serial port", "zig/scale.zig"),
        ("pack the gateway and publish the packages to the feed", "powershell/release.ps1"),
    ],
)
def test_a_file_head_comment_is_found_by_a_sentence_from_it(polyglot, query, path):
    found = first(polyglot, query)
    assert found.path == path, (query, found.path, found.qualname)


def test_a_header_is_read_as_cpp_and_its_type_takes_the_opening_comment(polyglot):
    from indexing.selectors import active_units

    dock = active_units(repository=polyglot).get(path="cpp/dock.h", kind="class")
    # The export macro between `class` and the name no longer hides the class.
    assert (dock.language, dock.qualname) == ("cpp", "Dock")
    assert dock.docstring == "A Dock schedules the arrival of lorries at the unloading doors."
    # Named as C++ names it, with its namespace: it reaches the declaring header.
    assert first(polyglot, "depot::Dock").qualname == "Dock"
    assert first(polyglot, "Dock::Reserve").path == "cpp/dock.h"


def test_prose_comes_after_the_code_it_describes_and_first_when_asked_about_setup(polyglot):
    behaviour = search(
        repository=polyglot, query="send a failed upload again with a growing pause", k=5
    ).results
    paths = [r.unit.path for r in behaviour]
    assert paths[0] == "py/uploads.py" and "docs/uploads.md" in paths
    setup = first(polyglot, "how do I configure how many times an upload is retried")
    assert (setup.path, setup.kind) == ("docs/uploads.md", "section")
    # A build file is read: the MSBuild properties that set the version are among the first.
    version = search(repository=polyglot, query="where is the package version set", k=3).results
    assert ("Directory.Version.props", "xml") in [(r.unit.path, r.unit.language) for r in version]
