"""Module-level code as units, and `@overload` stubs folded into their implementation."""

from indexing.parsing import FUNCTION, METHOD, MODULE, parse_source

GLOBALS = b'''"""Context globals for the app.

Read these instead of passing the app around.
"""
from __future__ import annotations

import typing as t
from typing import overload

# the proxies
g: AppGlobals = LocalProxy(_cv_app, "g")
request = LocalProxy(_cv_request)
__all__ = ["g", "request"]


@overload
def get(key: int) -> int: ...
@overload
def get(key: str) -> str: ...
def get(key):
    """The value for key."""
    return key


class Store:
    @t.overload
    def put(self, v: int) -> None: ...
    @t.overload
    def put(self, v: str) -> None: ...
    def put(self, v):
        self.v = v


try:
    import ujson as json
except ImportError:
    json = None

signals = Namespace()
request_started, request_finished = signals.signal("started"), signals.signal("finished")

if __name__ == "__main__":
    main()
'''


def units(kind=None):
    parsed = parse_source(GLOBALS, path="app/globals.py")
    return [u for u in parsed.units if kind is None or u.kind == kind]


def test_every_module_level_statement_is_in_a_module_unit():
    blocks = units(MODULE)
    # The opening lines are named after the file; the others by their first public name.
    assert [u.qualname for u in blocks] == ["globals", "json", "__main__"]
    head, signals, main = blocks
    assert head.start_line == 1 and head.end_line == 13
    assert head.defines == ("g", "request", "__all__")
    assert head.docstring.startswith("Context globals for the app.")
    assert head.signature == "module globals: g, request, __all__"
    assert "LocalProxy(_cv_app" in head.code
    assert signals.defines == ("json", "signals", "request_started", "request_finished")
    assert main.code.startswith('if __name__ == "__main__":') and main.defines == ()


def test_a_block_is_named_by_the_file_when_it_opens_it_else_by_its_first_public_name():
    source = (
        b"from x import y\n\n"
        b'_no_app_msg = "no app"\ng = LocalProxy(y)\n\n\n'
        b"def f():\n    pass\n\n"
        b"_CACHE = {}\nregistry = {}\n"
    )
    blocks = [u for u in parse_source(source, path="flask/globals.py").units if u.kind == MODULE]
    assert [(u.qualname, u.defines) for u in blocks] == [
        ("globals", ("_no_app_msg", "g")),
        ("registry", ("_CACHE", "registry")),
    ]


def test_module_units_do_not_overlap_definitions():
    definitions = [(u.start_line, u.end_line) for u in units() if u.kind != MODULE]
    for block in units(MODULE):
        for start, end in definitions:
            assert block.end_line < start or end < block.start_line


def test_imports_alone_are_no_unit():
    parsed = parse_source(b"import os\nimport sys\n\n\ndef f():\n    pass\n\nimport re\n")
    assert [u.kind for u in parsed.units] == [FUNCTION]


def test_a_long_run_of_constants_is_split_at_statement_boundaries():
    source = "".join(f"NAME_{i} = {i}\n" for i in range(70)).encode()
    blocks = parse_source(source, path="pkg/constants.py").units
    assert [b.kind for b in blocks] == [MODULE] * 3
    assert [b.start_line for b in blocks] == [1, 31, 61]
    assert blocks[1].qualname == "NAME_30" and blocks[1].defines[:2] == ("NAME_30", "NAME_31")


def test_blocks_that_define_nothing_are_named_after_their_file():
    parsed = parse_source(b"setup(name='x')\nregister(plugin)\n", path="pkg/__init__.py")
    assert [(u.name, u.signature) for u in parsed.units] == [("pkg", "module pkg")]


def test_overload_stubs_fold_into_their_implementation():
    functions = [u for u in units() if u.kind in (FUNCTION, METHOD)]
    assert [u.qualname for u in functions] == ["get", "Store.put"]
    get, put = functions
    assert get.start_line == 16 and get.signature == "def get(key)"
    assert get.docstring == "The value for key." and get.code.count("def get") == 3
    assert put.code.startswith("@t.overload") and put.code.count("def put") == 3


def test_stubs_without_an_implementation_are_one_unit():
    source = (
        b"class P(Protocol):\n"
        b"    @overload\n    def f(self, a: int) -> int: ...\n"
        b"    @overload\n    def f(self, a: str) -> str: ...\n"
    )
    parsed = parse_source(source)
    assert [u.qualname for u in parsed.units] == ["P", "P.f"]
    assert parsed.units[1].start_line == 2 and parsed.units[1].end_line == 5
