"""The repository's shape after the ranker: a pure function, tested on plain records."""

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from search.ranking.docs_questions import asks_about_docs, mentions_setup
from search.ranking.structure import (
    Strengths,
    _topic_stems,
    definition_match,
    file_topic,
    query_shape,
    shaped_order,
    why,
)


@dataclass(frozen=True)
class Unit:
    path: str
    qualname: str
    kind: str = "function"
    defines: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.qualname.split(".")[-1]


def test_query_shapes():
    assert query_shape("StaticModel").name == "StaticModel"
    dotted = query_shape("Session.send()")
    assert (dotted.name, dotted.dotted) == ("send", "Session.send")
    sentence = query_shape("how does StaticModel load its vocab_file?")
    assert sentence.name == "" and sentence.mentioned == {"StaticModel", "vocab_file"}
    assert query_shape("class Timeout").name == "Timeout"


def test_definition_match_is_case_sensitive_and_prefers_the_dotted_parent():
    shape = query_shape("Timeout")
    assert definition_match(Unit("a.py", "Timeout", "class"), shape) == 1.0
    assert definition_match(Unit("a.py", "Request.timeout", "method"), shape) == 0.0
    dotted = query_shape("Session.send")
    assert definition_match(Unit("s.py", "Session.send"), dotted) == 1.0
    assert definition_match(Unit("s.py", "Adapter.send"), dotted) == 0.5
    module = Unit("globals.py", "g", "module", defines=("g", "request"))
    assert definition_match(module, query_shape("request")) == 1.0


def test_file_topic_matches_a_file_named_for_a_query_word():
    shape = query_shape("authentication mechanisms and credential handling")
    assert file_topic("httpx/_auth.py", shape)
    assert file_topic("pydantic/aliases.py", query_shape("alias handling for fields"))
    assert file_topic("celery/backends/__init__.py", query_shape("result backends"))
    assert not file_topic("pkg/utils.py", query_shape("utils for strings"))
    assert not file_topic("pkg/io.py", query_shape("iowait tuning"))
    # The query's word starts, read once per query, answer as every word read against each
    # file's names would.
    for query in ("authentication mechanisms", "alias handling", "iowait tuning", "db io"):
        shape = query_shape(query)
        for path in ("httpx/_auth.py", "pydantic/aliases.py", "pkg/io.py", "a/tun.py", "db.py"):
            stems, prefixes = _topic_stems(path)
            by_word = bool(stems) and (
                not stems.isdisjoint(shape.words)
                or any(len(w) >= 4 and w.startswith(prefixes) for w in shape.words if prefixes)
            )
            assert file_topic(path, shape) == by_word, (query, path)


def test_a_bare_class_name_puts_its_definition_first():
    ranked = [
        (Unit("sub.py", "Sub.from_static_model", "method"), 2.0),
        (Unit("model.py", "StaticModel", "class"), 0.5),
    ]
    order = shaped_order("StaticModel", ranked, Strengths(defines=3.0))
    assert order[0][0].qualname == "StaticModel" and order[0][1] == 3.5
    assert why(order[0][0], query_shape("StaticModel"), Strengths()) == "defines 'StaticModel'"


def test_same_file_step_lets_a_second_file_into_the_top():
    ranked = [(Unit("a.py", f"A.m{i}"), 3.0 - 0.1 * i) for i in range(4)]
    ranked.append((Unit("b.py", "b"), 2.5))
    plain = [u.path for u, _ in shaped_order("q", ranked, Strengths(defines=0))]
    assert plain == ["a.py"] * 4 + ["b.py"]
    spread = [u.path for u, _ in shaped_order("q", ranked, Strengths(defines=0, same_file=0.5))]
    assert spread == ["a.py", "b.py", "a.py", "a.py", "a.py"]


def test_no_strengths_keep_the_ranker_order():
    ranked = [(Unit("a.py", "x"), 1.0), (Unit("b.py", "y"), 0.5)]
    zero = Strengths(defines=0, mentioned=0, file_topic=0, same_file=0)
    assert shaped_order("x", ranked, zero) == ranked


def test_module_blocks_step_back_unless_they_define_the_name():
    block = Unit("const.py", "BEGIN_BLOCK", "module", defines=("BEGIN_BLOCK", "END_BLOCK"))
    function = Unit("colors.py", "nearest_color")
    ranked = [(block, 1.0), (function, 0.8)]
    strengths = Strengths(defines=3.0, module=1.0)
    assert shaped_order("map a colour to the nearest code", ranked, strengths)[0][0] is function
    assert shaped_order("END_BLOCK", ranked, strengths)[0][0] is block


def test_a_page_steps_back_further_than_a_configuration_file_unless_setup_is_asked():
    page = Unit("docs/uploads.md", "Uploads > Retries", "section")
    config = Unit("Directory.Version.props", "PropertyGroup", "section")
    code = Unit("uploads.py", "retry_upload")
    ranked = [(page, 2.2), (config, 1.9), (code, 0.4)]
    strengths = Strengths(defines=0, prose=1.0, page=1.0)
    behaviour = shaped_order("send a failed upload again with a growing pause", ranked, strengths)
    # The page 2.2 - 2.0, the configuration file 1.9 - 1.0, the code as ranked.
    assert [(u.path, round(s, 2)) for u, s in behaviour] == [
        ("Directory.Version.props", 0.9),
        ("uploads.py", 0.4),
        ("docs/uploads.md", 0.2),
    ]
    setup = shaped_order("how do I configure the upload retries", ranked, strengths)
    assert [u for u, _ in setup] == [page, config, code]
    # Without the page step the page leads, as it did.
    unstepped = shaped_order("q", ranked, Strengths(defines=0, prose=1.0))
    assert unstepped[0][0] is page


def _scan_every_unit(scored, step):
    """The rule as stated: each time, the best of all remaining units after its file's toll."""
    remaining, listed, out = list(scored), {}, []
    while remaining:
        values = [s - step * listed.get(u.path, 0) for u, s in remaining]
        # Ties to the higher raw score, then to the earlier unit.
        best = max(range(len(remaining)), key=lambda i: (values[i], remaining[i][1], -i))
        unit, _ = remaining.pop(best)
        listed[unit.path] = listed.get(unit.path, 0) + 1
        out.append((unit.n, values[best]))
    return out


def test_spreading_files_chooses_as_a_scan_of_every_unit_would():
    import random

    from search.ranking.structure import _spread_files

    rng = random.Random(3)
    for _ in range(500):
        files, step = rng.randint(1, 8), rng.choice([0.1, 0.5, 1.0])
        scored = [
            (SimpleNamespace(path=f"f{rng.randrange(files)}.py", n=n), round(rng.gauss(0, 1), 1))
            for n in range(rng.randint(0, 40))
        ]
        expected = _scan_every_unit(scored, step)
        assert [(u.n, s) for u, s in _spread_files(scored, step)] == expected


@dataclass(frozen=True)
class Named:
    path: str
    name: str
    qualname: str
    kind: str = "method"
    defines: tuple[str, ...] = ()


def test_a_qualified_name_in_any_languages_spelling_finds_its_definition():
    rust = Named("src/lib.rs", "take", "Bucket::take")
    for query in ("Bucket::take", "Bucket.take", "Bucket#take", "Bucket->take", "take"):
        assert definition_match(rust, query_shape(query)) == 1.0, query
    assert definition_match(rust, query_shape("Pail::take")) == 0.5
    lua = Unit("timer.lua", "Timer.expired", "method")
    assert definition_match(lua, query_shape("Timer:expired")) == 1.0
    assert query_shape("how does Mailer::send queue mail?").mentioned == {"send"}
    assert query_shape("see issue #45 please").mentioned == frozenset()


def test_an_elixir_arity_may_be_typed_or_left_off():
    reserve = Named("stock.ex", "reserve/3", "Shop.Stock.reserve/3")
    for query in ("reserve", "reserve/3", "Stock.reserve", "Shop.Stock.reserve/3"):
        assert definition_match(reserve, query_shape(query)) == 1.0, query
    assert definition_match(reserve, query_shape("Stock.reserve/2")) == 0.0
    low = Named("stock.ex", "low?/2", "Shop.Stock.low?/2")
    assert definition_match(low, query_shape("Stock.low?")) == 1.0
    module = Named("stock.ex", "Shop.Stock", "Shop.Stock", "class")
    assert definition_match(module, query_shape("Shop.Stock")) == 1.0


def test_a_file_that_stands_for_its_folder_is_named_by_it():
    shape = query_shape("how are routes matched by the router")
    for path in ("web/router/index.ts", "src/router/mod.rs", "router/init.lua", "router.go"):
        assert file_topic(path, shape), path
    assert not file_topic("web/index.py", shape)  # Python's index.py is a file named index


@pytest.mark.parametrize(
    "question, about_docs",
    [
        ("registration of the gateway services in dependency injection", False),
        ("which dependencies does the package need", True),
        ("how to install it", True),
        # A reader's task, or a page by its kind, asks for the page.
        ("how do I build the library with cmake", True),
        ("install the cli with homebrew and run it the first time", True),
        ("default settings for the worker pool", True),
        ("contributing guidelines for new plugins", True),
        # Words of configuration, formats or installing that name what the code does.
        ("load a declarative yaml config file into the cache", False),
        ("encode and decode json", False),
        ("resolve dependency versions that conflict", False),
        ("how is the config file parsed, with its include directives", False),
        ("how are plugins installed and listed", False),
        ("how are the api documentation pages generated", False),
    ],
)
def test_docs_and_setup_questions_are_a_readers_task_not_what_code_does(question, about_docs):
    assert asks_about_docs(question) is about_docs


def test_an_issue_title_about_configuration_still_counts_as_about_setup():
    assert mentions_setup("yaml config ignored after upgrade")
    assert not mentions_setup("crash when the pool is closed twice")


def test_an_interface_file_comes_after_its_implementation_unless_named():
    interface = Unit("src/Routing/IRouteFinder.cs", "IRouteFinder.Find")
    implementation = Unit("src/Routing/RouteFinder.cs", "RouteFinder.Find")
    ranked = [(interface, 1.0), (implementation, 0.5)]
    strengths = Strengths(defines=3.0, interface=1.0)
    order = shaped_order("which route matches a path", ranked, strengths)
    assert [u.path for u, _ in order] == [implementation.path, interface.path]
    # Named as the query, the interface is the definition asked for.
    named = Unit("src/Routing/IRouteFinder.cs", "IRouteFinder")
    order = shaped_order("IRouteFinder", [(named, 1.0), (implementation, 0.5)], strengths)
    assert order[0][0] is named
    # Only where the language's convention says so: Java's `IOUtils.java` is no interface.
    java = Unit("src/IOUtils.java", "IOUtils.copy")
    order = shaped_order("copy a stream", [(java, 1.0), (implementation, 0.5)], strengths)
    assert order[0][0] is java
