import pytest

from indexing.parsing import CLASS, FUNCTION, METHOD, parse_source

TRICKY = b'''
import functools


@functools.lru_cache(maxsize=None)
@staticmethod
def cached(x):
    """Cached thing.

    More detail here.
    """
    return compute(x).value


class Outer(Base, metaclass=Meta):
    "Outer docstring."

    class Inner:
        def deep(self):
            def helper():
                return inner_call()
            return helper()

    @property
    def name(self) -> str:
        return self._name

    async def fetch(self, url, *, timeout=3):
        async with session() as s:
            return await s.get(url)

    square = lambda self, v: v * v


async def top_level_async():
    pass


handler = lambda event: dispatch(event)

if TYPE_CHECKING:
    def only_for_types(): ...
'''


def by_qualname(source: bytes):
    return {u.qualname: u for u in parse_source(source).units}


def test_every_unit_kind_and_qualname():
    units = by_qualname(TRICKY)
    assert set(units) == {
        "cached",
        "Outer",
        "Outer.Inner",
        "Outer.Inner.deep",
        "Outer.Inner.deep.helper",
        "Outer.name",
        "Outer.fetch",
        "Outer.square",
        "top_level_async",
        "handler",
        "only_for_types",
    }
    assert units["cached"].kind == FUNCTION
    assert units["Outer"].kind == CLASS
    assert units["Outer.Inner"].kind == CLASS
    assert units["Outer.Inner"].class_name == "Outer"
    assert units["Outer.Inner.deep"].kind == METHOD
    assert units["Outer.Inner.deep"].class_name == "Outer.Inner"
    assert units["Outer.Inner.deep.helper"].kind == FUNCTION
    assert units["Outer.Inner.deep.helper"].parent_qualname == "Outer.Inner.deep"
    assert units["Outer.square"].kind == METHOD
    assert units["handler"].kind == FUNCTION


def test_decorators_lines_signature_docstring():
    units = by_qualname(TRICKY)
    cached = units["cached"]
    assert cached.decorators == ("functools.lru_cache(maxsize=None)", "staticmethod")
    # The span starts at the first decorator and the code includes it.
    assert cached.start_line == 5
    assert cached.end_line == 12
    assert cached.code.startswith("@functools.lru_cache")
    assert cached.signature == "def cached(x)"
    assert cached.docstring == "Cached thing.\n\nMore detail here."
    assert units["Outer"].docstring == "Outer docstring."
    assert units["Outer"].signature == "class Outer(Base, metaclass=Meta)"
    assert units["Outer.name"].signature == "def name(self) -> str"


def test_async_and_named_lambdas():
    units = by_qualname(TRICKY)
    assert units["Outer.fetch"].is_async
    assert units["top_level_async"].is_async
    assert not units["cached"].is_async
    assert units["handler"].signature == "handler = lambda event"


def test_syntax_errors_recover_what_parses():
    source = b"""
def good_before(a):
    return a + 1

def broken(:
    pass

class StillThere:
    def method(self):
        return 42
"""
    parsed = parse_source(source)
    assert parsed.has_errors
    assert 5 in parsed.error_lines
    names = {u.qualname for u in parsed.units}
    assert {"good_before", "StillThere", "StillThere.method"} <= names


def test_python2_file_yields_all_its_units():
    # tree-sitter-python still understands Python 2 statements, so nothing is lost.
    source = b"""
def legacy(x):
    try:
        return 0777 + long(x)
    except ValueError, e:
        raise e, None
    print "value", `x`

def modern(y):
    return y * 2
"""
    units = by_qualname(source)
    assert set(units) == {"legacy", "modern"}
    assert units["legacy"].end_line == 7


def test_non_utf8_bytes_are_flagged_and_replaced():
    parsed = parse_source(b"def latin():\n    return '\xe9t\xe9'\n")
    assert parsed.decoded_with_replacement
    (unit,) = parsed.units
    assert unit.qualname == "latin"
    assert "\ufffd" in unit.code


def test_empty_and_comment_only_files():
    assert parse_source(b"").units == []
    assert parse_source(b"# nothing here\n").units == []


def test_method_code_is_dedented():
    units = by_qualname(TRICKY)
    assert units["Outer.name"].code == "@property\ndef name(self) -> str:\n    return self._name"
    assert units["Outer.Inner.deep"].code.splitlines()[1] == "    def helper():"


def test_module_and_class_summaries_reach_their_members():
    source = b'''"""HTTP helpers for the shop.

Longer text that is not the summary.
"""


class Retry:
    """A retry policy for flaky calls. It backs off."""

    def wait(self):
        pass

    if True:
        def guarded(self):
            pass

    class Inner:
        def deep(self):
            pass


def top():
    """Top. Level."""
'''
    parsed = parse_source(source)
    assert parsed.module_summary == "HTTP helpers for the shop"
    summaries = {u.qualname: u.class_summary for u in parsed.units if u.kind != "module"}
    assert summaries == {
        "Retry": "",
        "Retry.wait": "A retry policy for flaky calls",
        "Retry.guarded": "A retry policy for flaky calls",
        "Retry.Inner": "A retry policy for flaky calls",
        "Retry.Inner.deep": "",  # Inner has no docstring
        "top": "",
    }


def test_summary_line():
    from indexing.parsing import SUMMARY_CHARS, summary_line

    assert summary_line("Return the value. Raises if missing.") == "Return the value"
    assert summary_line("Line one\ncontinues here.\n\nSecond paragraph.") == (
        "Line one continues here"
    )
    assert summary_line("Parse version 1.2 strings") == "Parse version 1.2 strings"
    assert len(summary_line("word " * 200)) <= SUMMARY_CHARS
    assert summary_line("") == ""


def test_a_json_file_nested_deeper_than_the_decoder_goes_is_read_as_windows():
    deep = "[" * 50_000 + "]" * 50_000
    parsed = parse_source(deep.encode(), path="tests/data/deep.json")
    assert parsed.units and not parsed.has_errors and not parsed.failure


def test_a_file_a_parser_cannot_survive_is_left_out_with_its_reason(monkeypatch):
    import indexing.code_units

    def explode(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(indexing.code_units, "parse_code", explode)
    parsed = parse_source(b"package main\n", path="main.go")
    assert parsed.units == [] and parsed.language == "go"
    assert parsed.failure == "RecursionError: maximum recursion depth exceeded"


@pytest.mark.django_db
def test_an_index_run_goes_on_past_a_hostile_file_and_reports_it(write_repo, monkeypatch):
    import indexing.code_units
    from indexing.models import FileVersion
    from indexing.services import index_run_execute, index_run_start, repository_create

    real = indexing.code_units.parse_code

    def fragile(source, spec, path=""):
        if path == "hostile.go":
            raise RecursionError("maximum recursion depth exceeded")
        return real(source, spec, path=path)

    monkeypatch.setattr(indexing.code_units, "parse_code", fragile)
    root = write_repo(
        {"hostile.go": "package main\n", "ok.go": "package main\n\nfunc Fine() int { return 1 }\n"}
    )
    repository = repository_create(name="hostile", source=str(root))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    hostile = FileVersion.objects.get(repository=repository, path="hostile.go")
    assert hostile.parse_warning.startswith("could not be parsed (RecursionError")
    assert repository.units.filter(path="ok.go", name="Fine").exists()
