"""Files as answers: a question that asks how a part works gets the files it needs first; a
name or a precise question keeps its best unit first. Pure functions, tested on plain records."""

from dataclasses import dataclass, field

import pytest

from search.ranking.files import asks_for_files, file_evidence, is_opening
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
