"""The ranker's training data: CoSQA's training pairs as ranking groups, and their labels."""

import json
from types import SimpleNamespace

import pytest

from benchmarks.heldout import read_projects
from benchmarks.train_ranker import cosqa_training_dataset, refuse_held_out, snippet_labels_for
from search.evaluation.corpora import snippet_filename

PAIRS = [
    {"idx": "0", "query": "sort a list", "code": "def a(): return sorted(x)", "label": 1},
    {"idx": "1", "query": "sort a list", "code": "def b(): return x", "label": 0},
    {"idx": "2", "query": "read a file", "code": "def c(): return open(p).read()", "label": 1},
    {"idx": "3", "query": "read a file", "code": "def d(): return open(q).read()", "label": 1},
    {"idx": "4", "query": "unanswered", "code": "def e(): pass", "label": 0},
]


def _write(tmp_path):
    path = tmp_path / "cosqa-train-pairs.json"
    path.write_text(json.dumps(PAIRS))
    return path


def test_every_code_is_in_the_corpus_and_only_answered_queries_ask(tmp_path):
    dataset = cosqa_training_dataset(_write(tmp_path), queries=10)
    (corpus,) = dataset.corpora.values()
    assert corpus.kind == "snippets"
    assert sorted(corpus.snippets.values()) == sorted(p["code"] for p in PAIRS)
    asked = {q.query: sorted(corpus.snippets[g.path] for g in q.gold) for q in dataset.queries}
    assert asked == {
        "sort a list": ["def a(): return sorted(x)"],
        "read a file": ["def c(): return open(p).read()", "def d(): return open(q).read()"],
    }


def test_the_sample_is_fixed_by_the_file_and_the_number(tmp_path):
    path = _write(tmp_path)
    first = [q.query for q in cosqa_training_dataset(path, queries=1).queries]
    again = [q.query for q in cosqa_training_dataset(path, queries=1).queries]
    both = [q.query for q in cosqa_training_dataset(path, queries=2).queries]
    assert first == again and len(first) == 1 and both[0] == first[0]


def test_every_unit_of_the_gold_snippet_is_a_hit(tmp_path):
    dataset = cosqa_training_dataset(_write(tmp_path), queries=10)
    query = next(q for q in dataset.queries if q.query == "sort a list")
    gold_file = snippet_filename(query.gold[0].path)
    units = [
        SimpleNamespace(path=gold_file),
        SimpleNamespace(path="other.py"),
        SimpleNamespace(path=gold_file),
    ]
    assert snippet_labels_for(units, query.gold).tolist() == [1, 0, 1]


def test_labels_follow_evaluation_for_units_classes_module_names_and_files():
    from types import SimpleNamespace as Unit

    from benchmarks.train_ranker import labels_for
    from search.evaluation.datasets import GoldUnit

    units = [
        Unit(path="a.py", qualname="C", kind="class", start_line=1, end_line=9),
        Unit(path="a.py", qualname="C.m", kind="method", start_line=3, end_line=4),
        Unit(
            path="a.py",
            qualname="X",
            kind="module",
            defines=["X", "LIMIT"],
            start_line=10,
            end_line=11,
        ),
        Unit(path="b.py", qualname="f", kind="function", start_line=1, end_line=2),
        Unit(path="c.py", qualname="g", kind="function", start_line=1, end_line=2),
    ]
    gold = [GoldUnit("a.py", "C.m"), GoldUnit("a.py", "LIMIT"), GoldUnit("b.py")]
    assert labels_for(units, gold).tolist() == [1, 1, 1, 1, 0]


def test_written_questions_grade_primary_above_secondary_targets():
    from types import SimpleNamespace as Unit

    from benchmarks.train_ranker import graded_labels_for
    from search.evaluation.datasets import GoldUnit

    units = [
        Unit(path="a.py", qualname="f", kind="function", start_line=1, end_line=5),
        Unit(path="a.py", qualname="g", kind="function", start_line=7, end_line=9),
        Unit(path="b.py", qualname="h", kind="function", start_line=1, end_line=3),
        Unit(path="c.py", qualname="k", kind="function", start_line=1, end_line=3),
    ]
    gold = [
        GoldUnit("a.py", "f", lines=(1, 5)),
        GoldUnit("a.py", "", lines=(8, 8), relevance=0.5, primary=False),
        GoldUnit("b.py", relevance=0.5, primary=False),
        # A unit covering a primary and a secondary target takes the higher grade.
        GoldUnit("a.py", "", lines=(2, 2), relevance=0.5, primary=False),
    ]
    assert graded_labels_for(units, gold).tolist() == [2, 1, 1, 0]


def test_a_held_out_package_or_corpus_stops_the_fit(tmp_path):
    listed = tmp_path / "projects.txt"
    listed.write_text("# held out\naiohttp\nkotlinx.coroutines\n")
    projects = read_projects(listed)

    def dataset(*keys):
        corpora = {k: SimpleNamespace(source=f"/site-packages/{k}") for k in keys}
        return SimpleNamespace(corpora=corpora)

    refuse_held_out(dataset("numpy-2.4.6", "commander"), dataset("tqdm"), projects=projects)
    with pytest.raises(SystemExit, match=r"aiohttp-3\.14\.5"):
        refuse_held_out(dataset("numpy-2.4.6"), dataset("aiohttp-3.14.5"), projects=projects)
    with pytest.raises(SystemExit, match="Kotlinx_Coroutines"):
        refuse_held_out(dataset("Kotlinx_Coroutines"), projects=projects)
