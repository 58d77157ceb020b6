"""Files as answers: a question that asks how a part works gets the files it needs first; a
name or a precise question keeps its best unit first. Pure functions, tested on plain records."""

from dataclasses import dataclass, field

import pytest

from search.ranking.files import (
    asks_for_files,
    file_evidence,
    is_opening,
    lexical_file_evidence,
)
from search.ranking.paths import count_path_words
from search.ranking.structure import Strengths, shape_ranked, shaped_order


@dataclass(frozen=True)
class Unit:
    path: str
    qualname: str
    kind: str = "method"
    defines: tuple[str, ...] = field(default=())
    docstring: str = ""

    @property
    def name(self) -> str:
        return self.qualname.split(".")[-1]


BROAD = Strengths(defines=5.0, same_file=0.1, module=1.0, broad_same_file=1.0, opening=1.0)


@pytest.mark.parametrize(
    ("query", "broad"),
    [
        ("how does the worker take messages off the broker", True),
        ("which files implement constrained layout", True),
        ("what handles retries", True),
        ("How are URLs parsed and normalised", True),
        ("where does a worker give up retrying a task", False),
        ("how does task_routes decide where my task goes, and why", False),
        ("how long does it wait between retries", False),
        ("how to read a json file in python", False),
        ("how do I clear the cache", False),
        ("retry a failed call", False),
    ],
)
def test_questions_that_ask_for_files(query, broad):
    assert asks_for_files(query, is_name=False) is broad


def test_a_name_never_asks_for_files():
    assert not asks_for_files("which", is_name=True)


def test_file_evidence_grows_with_a_files_share_of_the_first_candidates():
    units = [Unit("a.py", f"A.m{i}") for i in range(4)] + [Unit("b.py", "B"), Unit("a.py", "A.z")]
    evidence = file_evidence(units, window=5, strength=0.5)
    assert evidence == {"a.py": pytest.approx(1.0)}  # four of the first five: two doublings
    assert file_evidence(units, window=5, strength=0.0) == {}


def test_opening_lines_are_the_module_block_with_the_docstring():
    assert is_opening(Unit("a.py", "a", "module", docstring="Connection pools."))
    assert not is_opening(Unit("a.py", "TIMEOUT", "module"))
    assert not is_opening(Unit("a.py", "f", "function", docstring="Does f."))


def _two_files_and_a_crowd():
    """Two files answer; a third has five methods that match a little better each."""
    crowd = [(Unit("crowd.py", f"Crowd.m{i}"), 2.0 - 0.05 * i) for i in range(5)]
    return [
        *crowd[:2],
        (Unit("transport.py", "Transport.handle"), 1.8),
        *crowd[2:],
        (Unit("pool.py", "Pool.get"), 1.5),
    ]


def test_a_question_about_how_a_part_works_lists_the_answering_files_first():
    ranked = _two_files_and_a_crowd()
    query = "how does connection pooling and transport work"
    paths = [u.path for u, _ in shaped_order(query, ranked, BROAD)][:3]
    assert set(paths) == {"crowd.py", "transport.py", "pool.py"}
    # Today's step alone lists the crowd's methods before the pool.
    today = Strengths(defines=5.0, same_file=0.1, module=1.0)
    assert "pool.py" not in [u.path for u, _ in shaped_order(query, ranked, today)][:3]


def test_a_precise_question_and_a_name_keep_the_best_unit_order():
    ranked = _two_files_and_a_crowd()
    today = Strengths(defines=5.0, same_file=0.1, module=1.0)
    for query in ("where does the crowd give up retrying", "Crowd.m0"):
        assert shaped_order(query, ranked, BROAD) == shaped_order(query, ranked, today)


def test_a_files_opening_lines_are_not_held_back_for_any_question():
    opening = Unit("pools.py", "pools", "module", docstring="Connection and producer pools.")
    ranked = [(Unit("other.py", "f", "function"), 1.0), (opening, 0.6)]
    broad = shape_ranked("how do connection pools work", ranked, BROAD)
    assert broad[1][0] is opening and broad[1][1] == pytest.approx(0.6)
    assert "opening lines" in broad[1][2]
    precise = shape_ranked("where is a connection taken from the pool", ranked, BROAD)
    assert precise[1][1] == pytest.approx(0.6) and "opening lines" in precise[1][2]
    # Module-level code without the file's documentation still takes the module step.
    block = Unit("pools.py", "pools", "module")
    plain = shaped_order("where is a connection taken from the pool", [(block, 0.6)], BROAD)
    assert plain[0][1] == pytest.approx(-0.4)


def test_lexical_file_evidence_lifts_files_above_the_candidates_mean():
    mass = {"kit.py": 40.0, "a.py": 2.0, "b.py": 2.0, "c.py": 1.0}
    paths = ["a.py", "kit.py", "b.py", "c.py", "kit.py"]
    evidence = lexical_file_evidence(paths, mass, strength=0.25)
    assert set(evidence) == {"kit.py"} and 0 < evidence["kit.py"] <= 0.25 * 2
    assert lexical_file_evidence(paths, mass, strength=0.0) == {}
    assert lexical_file_evidence(paths, {p: 3.0 for p in mass}, strength=0.25) == {}


def test_a_central_file_whose_units_match_together_comes_first():
    # Small files with one good unit each; the central file's units are each a little behind.
    ranked = [
        (Unit("header.py", "clean"), 1.2),
        (Unit("kit.py", "trim"), 1.1),
        (Unit("args.py", "normalise"), 1.0),
        (Unit("kit.py", "collapse"), 0.9),
    ]
    mass = {"header.py": 3.0, "kit.py": 30.0, "args.py": 2.5}
    query = "whitespace cleanup of strings"
    plain = shaped_order(query, ranked, Strengths())
    assert plain[0][0].path == "header.py"
    lifted = shaped_order(query, ranked, Strengths(lexical_file_mass=0.25), lexical_mass=mass)
    assert lifted[0][0].path == "kit.py"
    # A name typed as the query is answered by its definition, not by a file's mass.
    named = shaped_order("clean", ranked, Strengths(lexical_file_mass=0.25), lexical_mass=mass)
    assert named[0][0].path == "header.py"


def test_a_sentence_names_different_files_first_and_a_name_does_not():
    ranked = [
        (Unit("a.py", "A.one"), 2.0),
        (Unit("a.py", "A.two"), 1.9),
        (Unit("b.py", "B.one"), 1.0),
    ]
    strengths = Strengths(same_file=0.2, sentence_same_file=1.5)
    spread = shaped_order("retry a failed request with backoff", ranked, strengths)
    assert [u.path for u, _ in spread][:2] == ["a.py", "b.py"]
    named = shaped_order("A.two", ranked, strengths)
    assert [u.path for u, _ in named][:2] == ["a.py", "a.py"]


def test_the_file_whose_path_names_the_topic_is_lifted():
    ranked = [
        (Unit("lib/formats.js", "adapterFor"), 1.0),
        (Unit("adapters/yaml_adapter.js", "A"), 0.6),
    ]
    paths = count_path_words(
        ["lib/formats.js", "adapters/yaml_adapter.js", "adapters/json_adapter.js"]
    )
    shaped = shape_ranked("the yaml adapter", ranked, Strengths(path_topic=1.0), paths=paths)
    assert shaped[0][0].path == "adapters/yaml_adapter.js"
    assert "its path names the topic" in shaped[0][2]
    # Without the repository's path words the rule is off.
    assert shape_ranked("the yaml adapter", ranked, Strengths(path_topic=1.0))[0][0].path == (
        "lib/formats.js"
    )
