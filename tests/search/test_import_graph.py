"""What a file imports and what imports it: each language's statements read (its data), targets
resolved to the repository's files the way a reader guesses them, and the graph built from a
real index and handed to `locate` as evidence."""

from __future__ import annotations

import pytest

from indexing.languages import language_named
from search.file_map import file_map
from search.import_graph import Target, _Resolver, _target, import_graph, read_targets
from search.locate import gather_evidence

# One snippet per language, and the targets it must yield (parts normalised: lower case,
# no `_` or `-`; `up` >= 0 for a target taken from the importing file's folder).
READING = {
    "python": (
        "from . import a, b\nfrom ..pkg.mod import Thing as T\nimport os.path\n",
        [
            (("a",), 0),
            (("b",), 0),
            (("pkg", "mod", "thing"), 1),
            (("pkg", "mod"), 1),
            (("os", "path"), -1),
        ],
    ),
    "javascript": (
        "import x from './foo'\nconst y = require('../bar/baz.js')\nexport * from \"./c\"\n",
        [(("foo",), 0), (("c",), 0), (("bar", "baz"), 1)],
    ),
    "typescript": ("import { A } from '../models/user';\n", [(("models", "user"), 1)]),
    "go": (
        'import (\n\t"fmt"\n\tlogx "github.com/acme/go-kit/core/logx"\n)\n',
        [(("fmt",), -1), (("github.com", "acme", "gokit", "core", "logx"), -1)],
    ),
    "java": ("import com.acme.io.Reader;\nimport static com.acme.Util.x;\n", None),
    "kotlin": ("import com.acme.io.Reader\n", [(("com", "acme", "io", "reader"), -1)]),
    "scala": ("import acme.io.{Reader, Writer}\n", None),
    "csharp": ("using Acme.Logging;\nusing static Acme.Util;\n", None),
    "php": ("use App\\Http\\Kernel;\nrequire_once 'lib/helpers.php';\n", None),
    "ruby": ("require 'thor/actions'\nrequire_relative \"shell\"\n", None),
    "rust": ("use crate::io::{Reader, writer};\npub mod config;\n", None),
    "swift": ("import Foundation\n@testable import Kingfisher\n", None),
    "c": ('#include "util/coding.h"\n#include <leveldb/db.h>\n', None),
    "cpp": ('#include "port/port.h"\n', [(("port", "port"), -1)]),
    "elixir": ("alias Oban.{Job, Repo}\nimport Ecto.Query\n", None),
    "haskell": ("import qualified Data.Map as M\nimport Text.Megaparsec\n", None),
    "lua": ("local util = require('gitsigns.util')\n", [(("gitsigns", "util"), -1)]),
    "bash": ('source "$PYENV_ROOT/libexec/pyenv-help"\n. ./lib/common.sh\n', None),
    "powershell": (". ./build/helpers.ps1\nimport-module ./tools/Packing.psm1\n", None),
    "zig": ('const png = @import("formats/png.zig");\n', [(("formats", "png"), -1)]),
}
# Where only which targets are read matters (their order aside), as sets of parts.
READ_PARTS = {
    "java": {("com", "acme", "io", "reader"), ("com", "acme", "util", "x")},
    "scala": {("acme", "io", "reader"), ("acme", "io", "writer"), ("acme", "io")},
    "csharp": {("acme", "logging"), ("acme", "util")},
    "php": {("app", "http", "kernel"), ("lib", "helpers")},
    "ruby": {("thor", "actions"), ("shell",)},
    "rust": {("io", "reader"), ("io", "writer"), ("io",), ("config",)},
    "swift": {("foundation",), ("kingfisher",)},
    "c": {("util", "coding"), ("leveldb", "db")},
    "elixir": {("oban", "job"), ("oban", "repo"), ("oban",), ("ecto", "query")},
    "haskell": {("data", "map"), ("text", "megaparsec")},
    "bash": {("libexec", "pyenvhelp"), ("lib", "common")},
    # A dot-sourced script, and a module imported in any case (cmdlets ignore it).
    "powershell": {("build", "helpers"), ("tools", "packing")},
}


@pytest.mark.parametrize("language", sorted(READING))
def test_each_language_reads_its_own_import_statements(language):
    text, expected = READING[language]
    found = read_targets(language_named(language), text)
    if expected is not None:
        assert sorted(found, key=lambda t: t.parts) == sorted(
            (Target(parts, up) for parts, up in expected), key=lambda t: t.parts
        )
    else:
        assert {t.parts for t in found} == READ_PARTS[language]


def test_every_code_language_has_import_data():
    from indexing.languages import _specs

    assert [spec.name for spec in _specs() if not spec.imports] == []


PATHS = [
    "src/shop/__init__.py",
    "src/shop/orders.py",
    "pkg/util/coding.h",
    "pkg/util/coding.cc",
    "core/logx/log.go",
    "core/logx/writer.go",
    "web/lib/foo.js",
    "web/lib/bar/index.js",
    "core/src/main/java/com/acme/io/Reader.java",
    "lib/my_app/http_client.ex",
    "a/utils.py",
    "b/utils.py",
    "c/utils.py",
    "d/utils.py",
    "e/utils.py",
]


@pytest.mark.parametrize(
    "language, importer, written, expected",
    [
        ("python", "src/shop/cart.py", ".orders", ["src/shop/orders.py"]),
        ("python", "app.py", "shop.orders.place_order", ["src/shop/orders.py"]),
        ("python", "app.py", "shop", ["src/shop/__init__.py"]),
        ("c", "pkg/db/db.cc", "util/coding.h", ["pkg/util/coding.h", "pkg/util/coding.cc"]),
        (
            "go",
            "cmd/main.go",
            "github.com/acme/kit/core/logx",
            ["core/logx/log.go", "core/logx/writer.go"],
        ),
        ("javascript", "web/lib/x.js", "./foo", ["web/lib/foo.js"]),
        ("javascript", "web/lib/x.js", "./bar", ["web/lib/bar/index.js"]),
        (
            "java",
            "A.java",
            "com.acme.io.Reader.Inner",
            ["core/src/main/java/com/acme/io/Reader.java"],
        ),
        ("elixir", "lib/x.ex", "MyApp.HttpClient", ["lib/my_app/http_client.ex"]),
        ("python", "app.py", "utils", []),  # five files of that name: too vague to mean one
        ("python", "app.py", "requests.adapters", []),  # a library outside the repository
    ],
)
def test_a_target_resolves_to_the_files_a_reader_would_open(language, importer, written, expected):
    resolver = _Resolver(dict(enumerate(PATHS)))
    found = resolver.resolve(importer, _target(language_named(language), written))
    assert sorted(PATHS[i] for i in found) == sorted(expected)


SHOP = {
    "shop/__init__.py": "",
    "shop/orders.py": (
        "from shop.inventory import Stock\nfrom .payments import charge\n\n\n"
        "def place_order(cart, card):\n"
        '    """Reserve every line of the cart, then charge the card."""\n'
        "    Stock().reserve(cart)\n    return charge(card, len(cart))\n"
    ),
    "shop/inventory.py": (
        "class Stock:\n    def reserve(self, cart):\n"
        '        """Hold back the articles of a cart."""\n        return cart\n'
    ),
    "shop/payments.py": 'def charge(card, amount):\n    """Charge a card."""\n    return amount\n',
    "README.md": "# Shop\n\nOrders, stock and payments.\n",
    "tests/test_orders.py": (
        "from shop.orders import place_order\n\n\n"
        "def test_place_order():\n    assert place_order([], None) == 0\n"
    ),
    "web/app.js": "import { render } from './view';\nexport const start = () => render();\n",
    "web/view.js": "export function render() { return 'shop'; }\n",
}


@pytest.fixture
def importing_shop(indexed_repo):
    return indexed_repo("shop", SHOP)


@pytest.mark.django_db
def test_the_graph_of_a_real_index_links_modules_their_imports_and_their_tests(importing_shop):
    from indexing.selectors import active_generation

    generation = active_generation(repository=importing_shop)
    files = file_map(generation)
    graph = import_graph(generation, files)

    def imports(path):
        return sorted(files.paths[i] for i in graph.imports.get(files.index_of_path[path], ()))

    def importers(path):
        return sorted(files.paths[i] for i in graph.imported_by.get(files.index_of_path[path], ()))

    assert imports("shop/orders.py") == ["shop/inventory.py", "shop/payments.py"]
    assert importers("shop/orders.py") == ["tests/test_orders.py"]
    assert imports("web/app.js") == ["web/view.js"]
    assert importers("README.md") == [] and imports("README.md") == []


@pytest.mark.django_db
def test_locate_passes_a_likely_files_evidence_to_what_it_imports_and_what_imports_it(
    importing_shop,
):
    found = gather_evidence(repository=importing_shop, issue="place_order fails for an empty cart")
    files = found.files
    imported = {files.paths[f]: said for f, said in found.kinds["imported"].said.items()}
    importers = {files.paths[f]: said for f, said in found.kinds["importers"].said.items()}
    assert imported["shop/payments.py"] == "imported by orders.py"
    assert importers["tests/test_orders.py"] == "imports orders.py"


@pytest.mark.django_db
def test_a_test_named_in_an_issue_brings_the_module_it_imports(importing_shop):
    # The issue names only a test: the test file is found by its name, and the module it
    # imports is found through it.
    found = gather_evidence(
        repository=importing_shop, issue="test_place_order fails since the last release"
    )
    files = found.files
    imported = {files.paths[f]: said for f, said in found.kinds["imported"].said.items()}
    assert imported["shop/orders.py"] == "imported by test_orders.py"
