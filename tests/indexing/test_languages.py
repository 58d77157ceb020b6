# ruff: noqa: E501  (one row per language in the table below)
"""Every code language of indexing.languages, over tests/fixtures/polyglot: one small file per
language with a type, a method in it and a documented free function."""

from pathlib import Path

import pytest

from indexing.languages import CODE_LANGUAGES, language_for_path, language_named
from indexing.parsing import CLASS, FUNCTION, METHOD, MODULE, parse_source

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "polyglot"

# path, language, (kind, qualname, start, end) of the method, of the free function, and a
# phrase of the function's doc comment.
CASES = [
    (
        "js/cart.js",
        "javascript",
        (METHOD, "Cart.addItem", 13, 19),
        (FUNCTION, "roundShelfPrice", 22, 28),
        "Rounds a shelf price to whole cents for the receipt printer.",
    ),
    (
        "ts/router.ts",
        "typescript",
        (METHOD, "Router.register", 9, 12),
        (FUNCTION, "splitRoutePattern", 19, 24),
        "Splits a route pattern into literal segments and named parameters.",
    ),
    (
        "ts/Badge.tsx",
        "tsx",
        (METHOD, "Badge.render", 7, 10),
        (FUNCTION, "cappedCount", 13, 18),
        "Caps the unread counter at ninety-nine so the pill never overflows.",
    ),
    (
        "go/bins.go",
        "go",
        (METHOD, "Location.Describe", 18, 21),
        (FUNCTION, "ParseBinLabel", 23, 31),
        "ParseBinLabel splits a warehouse bin label like A-12 into its aisle and rack.\nIt returns an error for malformed labels.",
    ),
    (
        "java/Ledger.java",
        "java",
        (METHOD, "Ledger.post", 12, 17),
        (METHOD, "Ledger.runningBalance", 19, 30),
        "Computes the running balance after every posting, oldest first.",
    ),
    (
        "kotlin/Thermostat.kt",
        "kotlin",
        (METHOD, "Thermostat.warmer", 11, 16),
        (FUNCTION, "fahrenheitToCelsius", 19, 24),
        "Converts a Fahrenheit reading to whole Celsius degrees for the wall display.",
    ),
    (
        "scala/Queue.scala",
        "scala",
        (METHOD, "JobQueue.enqueue", 11, 14),
        (FUNCTION, "backoffDelay", 17, 20),
        "Computes an exponential backoff delay in milliseconds for a retry attempt.",
    ),
    (
        "csharp/Invoice.cs",
        "csharp",
        (METHOD, "Invoice.AddLine", 11, 15),
        (METHOD, "Money.RoundForTax", 20, 26),
        "Rounds an amount half away from zero, as the tax office requires.",
    ),
    (
        "php/Mailer.php",
        "php",
        (METHOD, "Mailer::send", 14, 20),
        (FUNCTION, "mask_address", 23, 30),
        "Masks the local part of an e-mail address before it is written to a log file.",
    ),
    (
        "ruby/slugger.rb",
        "ruby",
        (METHOD, "Slugger.unique_slug", 7, 12),
        (FUNCTION, "slugify", 15, 18),
        "Lowercases a title and replaces every run of punctuation with one hyphen.",
    ),
    (
        "rust/lib.rs",
        "rust",
        (METHOD, "Bucket::take", 14, 21),
        (FUNCTION, "retry_after", 24, 27),
        "Computes how long a client must wait before its next request is allowed.",
    ),
    (
        "swift/Playlist.swift",
        "swift",
        (METHOD, "Playlist.append", 9, 14),
        (FUNCTION, "formatDuration", 17, 20),
        "Formats a track length in seconds as minutes and seconds for the now-playing bar.",
    ),
    (
        "c/ringbuf.c",
        "c",
        None,
        (FUNCTION, "ring_read", 15, 26),
        "Copies up to len bytes out of the ring buffer and advances its tail.",
    ),
    (
        "cpp/matrix.cpp",
        "cpp",
        (METHOD, "Matrix::transpose", 22, 25),
        (FUNCTION, "nearly_equal", 27, 30),
        "Tells whether two doubles are equal within a small tolerance for geometry tests.",
    ),
    (
        "elixir/stock.ex",
        "elixir",
        (METHOD, "Shop.Stock.low?/2", 20, 21),
        (METHOD, "Shop.Stock.reserve/3", 10, 18),
        "Reserves units of a product for an order, failing when too few are left.",
    ),
    (
        "haskell/Parser.hs",
        "haskell",
        (METHOD, "Pretty.pretty", 10, 11),
        (FUNCTION, "tokenize", 17, 23),
        "Breaks an arithmetic expression into number and operator tokens, skipping spaces.",
    ),
    (
        "lua/timer.lua",
        "lua",
        (METHOD, "Timer.expired", 14, 17),
        (FUNCTION, "format_remaining", 19, 22),
        "Formats a remaining time in seconds as a mm:ss string for the status line.",
    ),
    (
        "bash/backup.sh",
        "bash",
        None,
        (FUNCTION, "prune_old_backups", 7, 10),
        "Deletes archives older than the retention period from the backup folder.",
    ),
    (
        "powershell/release.ps1",
        "powershell",
        (METHOD, "Feed.Push", 11, 13),
        (FUNCTION, "Get-VersionPrefix", 16, 21),
        "Reads the version prefix from the shared MSBuild properties file.",
    ),
    (
        "zig/vec.zig",
        "zig",
        (METHOD, "Vec2.add", 11, 14),
        (FUNCTION, "clampSpeed", 17, 20),
        "Clamps a velocity component so a body never tunnels through a wall in one step.",
    ),
]
TYPES = {
    "js/cart.js": "Cart",
    "ts/router.ts": "Router",
    "ts/Badge.tsx": "Badge",
    "go/bins.go": "Location",
    "java/Ledger.java": "Ledger",
    "kotlin/Thermostat.kt": "Thermostat",
    "scala/Queue.scala": "JobQueue",
    "csharp/Invoice.cs": "Invoice",
    "php/Mailer.php": "Mailer",
    "ruby/slugger.rb": "Slugger",
    "rust/lib.rs": "Bucket",
    "swift/Playlist.swift": "Playlist",
    "c/ringbuf.c": "ring",
    "cpp/matrix.cpp": "Matrix",
    "elixir/stock.ex": "Shop.Stock",
    "haskell/Parser.hs": "Token",
    "lua/timer.lua": None,
    "bash/backup.sh": None,
    "powershell/release.ps1": "Feed",
    "zig/vec.zig": "Vec2",
}


def _parse(relative: str):
    return parse_source((FIXTURES / relative).read_bytes(), path=relative)


def test_every_language_has_a_fixture():
    covered = {language for _, language, *_ in CASES}
    assert covered == set(CODE_LANGUAGES) - {"python"}


@pytest.mark.parametrize(
    ("path", "language", "method", "function", "doc"), CASES, ids=[c[1] for c in CASES]
)
def test_definitions_are_found(path, language, method, function, doc):
    parsed = _parse(path)
    assert parsed.language == language
    assert not parsed.has_errors
    assert not parsed.decoded_with_replacement
    units = {u.qualname: u for u in parsed.units}
    for expected in filter(None, (method, function)):
        kind, qualname, start, end = expected
        assert qualname in units, sorted(units)
        unit = units[qualname]
        assert (unit.kind, unit.start_line, unit.end_line) == (kind, start, end)
        assert unit.name == qualname.replace("::", ".").split(".")[-1]
        lines = (FIXTURES / path).read_text().split("\n")[start - 1 : end]
        assert unit.code.split() == "\n".join(lines).split()
        if kind == METHOD:
            assert unit.class_name and qualname.startswith(unit.class_name)
            assert unit.parent_qualname == unit.class_name
    unit = units[function[1]]
    assert unit.docstring.split("\n@")[0] == doc  # JSDoc tags follow the description
    assert unit.signature and not unit.signature.endswith(("{", "do"))
    assert "\n" not in unit.signature
    type_name = TYPES[path]
    if type_name:
        assert units[type_name].kind == CLASS


@pytest.mark.parametrize("path", [c[0] for c in CASES], ids=[c[1] for c in CASES])
def test_every_line_is_in_a_unit(path):
    parsed = _parse(path)
    lines = (FIXTURES / path).read_text().split("\n")
    covered = set()
    for unit in parsed.units:
        covered.update(range(unit.start_line, unit.end_line + 1))
    missing = [i + 1 for i, line in enumerate(lines) if line.strip() and i + 1 not in covered]
    assert missing == []
    assert len({u.qualname for u in parsed.units}) == len(parsed.units)
    if path != "elixir/stock.ex":  # all of it inside `defmodule`
        assert any(u.kind == MODULE for u in parsed.units)


def test_qualnames_follow_each_language():
    assert {u.qualname for u in _parse("rust/lib.rs").units} >= {
        "Bucket",
        "Bucket#2",
        "Bucket::take",
    }
    go = {u.qualname: u for u in _parse("go/bins.go").units}
    assert go["Location.Describe"].class_name == "Location"
    assert go["Location.Describe"].signature == "func (l *Location) Describe() string"
    lua = {u.qualname: u for u in _parse("lua/timer.lua").units}
    assert lua["Timer.new"].kind == METHOD
    # A block of assignments is named for what it binds (`M.Timer = Timer`), not the file.
    assert lua["Timer"].kind == MODULE and lua["Timer"].defines == ("Timer", "format_remaining")
    haskell = {u.qualname: u for u in _parse("haskell/Parser.hs").units}
    assert haskell["tokenize"].signature == "tokenize :: String -> [Token]"  # equations merged
    assert haskell["Token"].docstring == "A lexical token of an arithmetic expression."
    cs = {u.qualname: u for u in _parse("csharp/Invoice.cs").units}
    assert cs["Invoice"].docstring == "An invoice sent to one customer."  # XML tags dropped


def test_module_summaries_and_blocks():
    assert _parse("go/bins.go").module_summary == "Package bins locates goods in the warehouse"
    assert _parse("rust/lib.rs").module_summary == "Rate limiting for the public API"
    assert _parse("elixir/stock.ex").module_summary.startswith("Tracks how many units")
    assert _parse("zig/vec.zig").module_summary == "Small vector math for the physics step"
    assert _parse("bash/backup.sh").module_summary == "Nightly backup of the database"
    assert _parse("powershell/release.ps1").module_summary == (
        "Packs the gateway and publishes the packages to the feed"
    )
    blocks = [u for u in _parse("go/bins.go").units if u.kind == MODULE]
    assert blocks[0].name == "MaxAisle" and "MaxAisle" in blocks[0].defines
    assert [u.name for u in _parse("js/cart.js").units if u.kind == MODULE] == ["cart"]


@pytest.mark.parametrize("path", [c[0] for c in CASES], ids=[c[1] for c in CASES])
def test_a_broken_file_still_yields_units(path):
    source = (FIXTURES / path).read_bytes()
    cut = source.rfind(b"}") if b"}" in source else len(source) - 5
    broken = source[:cut] + b"\n)(}{ @@ ((\n" + source[cut:]
    parsed = parse_source(broken, path=path)
    assert parsed.has_errors and parsed.error_lines
    assert any(u.kind in (FUNCTION, METHOD, CLASS) for u in parsed.units)


def test_invalid_utf8_is_flagged_and_replaced():
    source = (FIXTURES / "go/bins.go").read_bytes().replace(b"a place", b"a pl\xe9ace")
    parsed = parse_source(source, path="go/bins.go")
    assert parsed.decoded_with_replacement
    location = next(u for u in parsed.units if u.qualname == "Location")
    assert "\ufffd" in location.docstring


def test_deep_nesting_does_not_recurse():
    source = b"function f() {\n" + b"if (x) {\n" * 3000 + b"}\n" * 3000 + b"}\n"
    parsed = parse_source(source, path="deep.js")
    assert [u.qualname for u in parsed.units if u.kind == FUNCTION] == ["f"]


def test_language_for_path():
    assert language_for_path("a/b.h").name == "c"
    assert language_for_path("x.ts").name == "typescript"
    assert language_for_path("x.tsx").name == "tsx"
    assert language_for_path("x.mjs").name == "javascript"
    assert language_for_path("src/Rakefile").name == "ruby"
    assert language_for_path("x.py").name == "python"
    assert language_for_path("README.md") is None
    assert language_for_path("Makefile") is None


def test_python_and_text_dispatch():
    assert parse_source(b"def f():\n    pass\n").language == "python"
    assert parse_source(b"def f():\n    pass\n", path="m.py").units[0].qualname == "f"
    parsed = parse_source(b"# Title\n\nSome text.\n", path="README.md")
    assert parsed.language == "markdown"
    assert parse_source(b"\x00\x01", path="image.png").units == []


@pytest.mark.parametrize(
    ("path", "head", "language"),
    [
        ("bin/deploy", b"#!/usr/bin/env bash\nset -e\n", "bash"),
        ("tools/check", b"#!/bin/sh -e\n", "bash"),
        ("scripts/migrate", b"#!/usr/bin/python3.11\n", "python"),
        ("bin/serve", b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        ("bash_completion", b"#     -*- shell-script -*-\n#\n", "bash"),
        ("completions/7z", b"# 7z(1) completion       -*- shell-script -*-\n", "bash"),
        ("lib/helpers", b"# helpers\n# vim: set ft=sh:\n", "bash"),
        ("LICENSE", b"MIT License\n", None),
        ("bin/tool", b"#!/usr/bin/perl\n", None),  # a language RepoRift has no grammar for
        ("notes.txt", b"#!/bin/bash\n", None),  # an extension says what a file is
    ],
)
def test_a_file_without_an_extension_is_known_by_its_first_lines(path, head, language):
    spec = language_for_path(path, head)
    assert (spec.name if spec else None) == language


def test_an_extensionless_script_is_parsed_as_its_language():
    source = b"#!/usr/bin/env bash\n# Greets the caller by name.\ngreet() {\n  echo hi\n}\n"
    parsed = parse_source(source, path="bin/greet")
    assert parsed.language == "bash"
    assert [(u.kind, u.name) for u in parsed.units if u.kind == "function"] == [
        ("function", "greet")
    ]


def test_rust_impl_blocks_carry_no_visibility():
    rust = language_named("rust")
    assert rust.is_private("Version", "struct Version")
    assert not rust.is_private("Version", "pub struct Version")
    assert not rust.is_private("Version", "impl Version")
    assert not rust.is_private("Version", "impl fmt::Display for Version")


def test_python_keeps_its_own_conventions():
    python = language_named("python")
    assert python.is_private("_helper", "def _helper()")
    assert not python.is_private("__mangled", "def __mangled()")
    assert python.is_special("__init__") and not python.is_special("init")


def test_types_declared_in_doc_comments_are_defined_where_they_are_written():
    lua = parse_source(
        b"local M = {}\n\n--- @class (exact) Shop.Basket : Shop.Base\n--- @field items table\n\n"
        b"--- @alias Shop.Mode 'open'|'closed'\n--- Creates a basket.\n"
        b"function M.new() return {} end\n",
        path="shop.lua",
    )
    units = {u.qualname: u for u in lua.units}
    # A block of its own (not the one binding `M` above it): named for the type, as written.
    assert units["M"].end_line == 1
    assert units["Shop.Basket"].kind == MODULE
    assert units["Shop.Basket"].defines == ("Shop.Basket", "Basket")
    # In a definition's doc comment: the definition defines it too.
    assert {"Shop.Mode", "Mode"} <= set(units["M.new"].defines)
    js = parse_source(
        b"/**\n * @typedef {{sku: string}} CartLine\n */\n\n/** @callback OnChange */\n"
        b"function watch(onChange) {}\n",
        path="cart.js",
    )
    units = {u.qualname: u for u in js.units}
    assert "CartLine" in units["CartLine"].defines
    assert "OnChange" in units["watch"].defines
