"""What the example writer reads off the unit's module (names, how to call it, how to build its
object) and the imports it adds to a program that uses a module's name without importing it."""

from __future__ import annotations

import textwrap

from tryouts.harness import (
    describe,
    import_missing,
    module_facts,
    placeholders_left,
    show_compared_values,
    whole_statements,
)
from tryouts.writer import FoundUnit

SOURCE = textwrap.dedent(
    """
    import re
    from typing import overload
    DEFAULT_WIDTH = 80
    _private = 1

    class Style:
        def __init__(self, color=None, *, bold=False):
            self.color = color

    class Console:
        def __init__(self, width: int = DEFAULT_WIDTH, style: Style | None = None):
            self.width = width

        def render(self, text, *, markup=True, **options):
            return text

        @property
        def size(self):
            return self.width

        @size.setter
        def size(self, value):
            self.width = value

        @classmethod
        def plain(cls, width):
            return cls(width)

    @overload
    def wrap(text: str) -> str: ...
    def wrap(text, width=DEFAULT_WIDTH):
        return text

    async def fetch(url, timeout=5.0):
        return url

    class Point:
        x: int
        y: int
        label: str = ""
    """
)


def test_module_facts_say_how_to_call_and_build():
    method = module_facts(SOURCE, "Console.render")
    assert method.constructor == "Console(width=DEFAULT_WIDTH, style=None)"
    assert method.signature == "obj.render(text, *, markup=True, **options)"
    assert {"Style", "Console", "DEFAULT_WIDTH", "wrap", "re", "overload"} <= set(method.names)
    assert "_private" not in method.names
    assert module_facts(SOURCE, "wrap").signature == "wrap(text, width=DEFAULT_WIDTH)"
    assert "property" in module_facts(SOURCE, "Console.size").signature
    assert module_facts(SOURCE, "Console.plain").signature == "Console.plain(width)"
    assert module_facts(SOURCE, "fetch").is_async
    assert module_facts(SOURCE, "Point").constructor == "Point(x=..., y=...)"
    assert module_facts("def broken(:", "broken").names == ()
    text = describe(method, "Console", "app.console")
    assert "obj = Console(" in text and "`app.console` also defines: " in text
    assert "Console," not in text.split("also defines: ")[1]


def test_missing_names_are_imported_from_the_module_or_the_standard_library():
    program = (
        "from app.console import Console\n"
        "obj = Console(style=Style('red'), width=_private)\n"
        "result = obj.render(json.dumps([1]))\n"
        "for item in result:\n"
        "    print(item, undefined_thing)\n"
        "assert result\n"
    )
    fixed = import_missing(program, "app.console", set(module_facts(SOURCE, "Console").defined))
    lines = fixed.splitlines()
    assert lines[:3] == [
        "from app.console import Console",
        "import json",
        "from app.console import Style, _private",
    ]
    assert "undefined_thing" in fixed and "import undefined_thing" not in fixed
    assert import_missing("def broken(:", "m", {"x"}) == "def broken(:"
    clean = "from m import f\nresult = f(1)\nassert result\n"
    assert import_missing(clean, "m", {"f", "g"}) == clean


def test_the_skeleton_builds_the_object_before_the_call():
    unit = FoundUnit("def render(self, text): ...", "app.console", "Console.render", SOURCE)
    skeleton = unit.skeleton()
    assert "from app.console import Console" in skeleton
    # the call passes what it must; the prompt's lines give every parameter
    assert "obj = Console()\nresult = obj.render(text=...)" in skeleton
    assert "assert result ==" in skeleton
    wrap = FoundUnit("def wrap(text, width=80): ...", "app.console", "wrap", SOURCE)
    assert "result = wrap(text=...)" in wrap.skeleton()
    coroutine = FoundUnit("async def fetch(url): ...", "app.console", "fetch", SOURCE)
    assert "asyncio.run(fetch(url=...))" in coroutine.skeleton()
    bare = FoundUnit("def f(): ...", "m", "f")
    assert "result = f(...)" in bare.skeleton()


def test_a_class_is_built_and_one_of_its_methods_called():
    facts = module_facts(SOURCE, "Console")
    assert facts.methods == ("render", "plain") and facts.properties == ("size",)
    unit = FoundUnit("class Console: ...", "app.console", "Console", SOURCE)
    assert "obj = Console()\nresult = obj.render(...)" in unit.skeleton()
    text = describe(facts, "Console", "app.console")
    assert "call one of its methods" in text and "read without calling them: size" in text


def test_unfilled_placeholders_are_counted():
    unit = FoundUnit("def render(self, text): ...", "app.console", "Console.render", SOURCE)
    assert placeholders_left(unit.skeleton().strip("`").removeprefix("python")) == 2
    filled = "obj = Console()\nresult = obj.render(text='hi')\nassert result == 'hi'\n"
    assert placeholders_left(filled) == 0
    assert placeholders_left("class Stub:\n    ...\nx: int = ...\n") == 0  # not a value slot


def test_a_failed_check_shows_the_value_it_compared():
    program = (
        "result = obj.reset()\n"
        "assert result == True  # what it must return\n"
        "assert result, 'already has a message'\n"
        "assert (\n    result == 1\n)\n"
    )
    shown = show_compared_values(program).splitlines()
    assert shown[1] == "assert result == True, repr(result)  # what it must return"
    assert shown[2] == "assert result, 'already has a message'"
    assert shown[3:] == ["assert (", "    result == 1", ")"]  # several lines: left alone
    assert show_compared_values("def broken(:") == "def broken(:"


def test_a_program_cut_off_is_cut_back_to_whole_statements():
    cut = 'from shop import f\n\nresult = f(2)\nassert result == 4\nprint("the end is\n'
    assert whole_statements(cut) == "from shop import f\n\nresult = f(2)\nassert result == 4"
    # nothing checked before the cut: left as it is, for the fixer
    early = "from shop import f\nresult = f(\n    2,\n"
    assert whole_statements(early) == early
    whole = "x = 1\nassert x == 1"
    assert whole_statements(whole) == whole
