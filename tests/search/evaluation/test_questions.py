"""The `questions` format: developer questions over an installed package, loaded and scored.

The package here is a small one made for the test and put on sys.path with its metadata, so
the loader finds it as it finds an installed dev package."""

import importlib
import json
import sys

import pytest

from search.evaluation.datasets import DatasetError, load_dataset
from search.evaluation.metrics import first_file_ndcg
from search.evaluation.questions import part_of

MODELS = '''
class StaticModel:
    """A table of token vectors."""

    def encode(self, texts):
        return [self.vectors[t] for t in texts]


class TunedModel(StaticModel):
    def from_static_model(self, static_model: StaticModel) -> "TunedModel":
        """Copy a StaticModel: StaticModel's vectors, StaticModel's tokenizer."""
        copy = StaticModel()  # a StaticModel, then a TunedModel made of the StaticModel
        copy.vectors = static_model.vectors
        return TunedModel.from_static_model(copy)
'''
GLOBALS = '''"""Context globals."""
from toypkg.proxy import LocalProxy

g = LocalProxy("app globals")
request = LocalProxy("request")
'''
LOOKUP = '''from typing import overload


@overload
def lookup(key: int) -> int: ...
@overload
def lookup(key: str) -> str: ...
def lookup(key):
    """Find the value stored under key."""
    return STORE[key]
'''
ROWS = [
    {"id": "toy-001", "kind": "symbol", "query": "StaticModel",
     "primary": [{"path": "toypkg/models.py", "qualname": "StaticModel"}]},
    {"id": "toy-002", "kind": "symbol", "query": "g",
     "primary": [{"path": "toypkg/globals.py", "lines": [4, 4]}]},
    {"id": "toy-003", "kind": "behaviour", "query": "find the value stored under a key",
     "primary": [{"path": "toypkg/lookup.py", "qualname": "lookup"}],
     "secondary": [{"path": "toypkg/globals.py"}]},
    {"id": "toy-004", "kind": "architecture", "query": "how are the context globals defined",
     "primary": [{"path": "toypkg/globals.py"}]},
]  # fmt: skip


@pytest.fixture
def toypkg(tmp_path, monkeypatch):
    site = tmp_path / "site"
    package = site / "toypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "proxy.py").write_text("class LocalProxy:\n    def __init__(self, name):\n"
                                      "        self.name = name\n")  # fmt: skip
    (package / "models.py").write_text(MODELS)
    (package / "globals.py").write_text(GLOBALS)
    (package / "lookup.py").write_text(LOOKUP)
    info = site / "toypkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield package
    sys.modules.pop("toypkg", None)


def write_rows(path, rows, **overrides):
    lines = [
        json.dumps({"package": "toypkg", "version": "1.0", **row, **overrides}) for row in rows
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_rows_load_with_their_targets_resolved_to_lines(toypkg, tmp_path):
    data = load_dataset(write_rows(tmp_path / "toy.jsonl", ROWS), "questions", part="all")
    assert [q.kind for q in data.queries] == ["symbol", "symbol", "behaviour", "architecture"]
    assert data.corpora["toypkg"].source == str(toypkg.resolve())
    static = data.queries[0].gold[0]
    assert (static.path, static.qualname, static.lines) == ("models.py", "StaticModel", (2, 6))
    behaviour = data.queries[2].gold
    assert behaviour[0].lines == (4, 10)  # the overload stubs and the implementation
    assert behaviour[1].primary is False and behaviour[1].relevance == 0.5
    assert behaviour[1].lines is None and behaviour[1].qualname == ""  # a whole file


def test_parts_split_the_rows_by_id(toypkg, tmp_path):
    rows = [dict(ROWS[3], id=f"toy-{n:03d}") for n in range(1, 41)]
    path = write_rows(tmp_path / "toy.jsonl", rows)
    tune = load_dataset(path, "questions", part="tune").queries
    final = load_dataset(path, "questions", part="final").queries
    assert len(tune) + len(final) == 40 and 3 <= len(final) <= 14
    assert {q.query_id for q in final} == {f"toy-{n:03d}" for n in range(1, 41)
                                          if part_of(f"toy-{n:03d}") == "final"}  # fmt: skip


@pytest.mark.parametrize(
    "change, message",
    [
        ({"version": "0.9"}, "written against toypkg 0.9, 1.0 installed"),
        ({"kind": "vibe"}, "kind must be one of"),
        ({"primary": [{"path": "toypkg/models.py", "qualname": "Nope"}]}, "defines no 'Nope'"),
        ({"primary": [{"path": "toypkg/none.py"}]}, "does not exist"),
        ({"primary": [{"path": "other/models.py"}]}, "is not under toypkg/"),
        ({"primary": [{"path": "toypkg/globals.py", "lines": [4, 99]}]}, "must be [start, end]"),
        ({"primary": []}, "'primary' is empty"),
    ],
)
def test_bad_rows_are_refused_with_the_line_and_reason(toypkg, tmp_path, change, message):
    path = write_rows(tmp_path / "toy.jsonl", [ROWS[0]], **change)
    with pytest.raises(DatasetError, match=r"toy.jsonl:1: .*" + message.replace("[", r"\[")):
        load_dataset(path, "questions", part="all")


@pytest.mark.django_db
def test_the_set_scores_per_kind_and_finds_what_developers_ask_for(toypkg, tmp_path):
    from search.evaluation.runner import evaluate

    data = load_dataset(write_rows(tmp_path / "toy.jsonl", ROWS), "questions", part="all")
    report = evaluate(dataset=data, progress=False)
    by_id = {entry["id"]: entry for entry in report["per_query"]}
    # A bare class name: its definition first, though the subclass's method says it more often.
    assert by_id["toy-001"]["results"][0]["qualname"] == "StaticModel"
    assert by_id["toy-001"]["definition_first"] is True
    # A module-level name: the module block that assigns it (the file's opening lines, named
    # after the file).
    first = by_id["toy-002"]["results"][0]
    assert (first["path"], first["kind"], first["qualname"]) == ("globals.py", "module", "globals")
    assert by_id["toy-002"]["definition_first"] is True
    # Three overloads and the implementation: one result.
    lookups = [r for r in by_id["toy-003"]["results"] if r["qualname"] == "lookup"]
    assert len(lookups) == 1 and by_id["toy-003"]["metrics"]["success@1"] == 1.0
    assert set(report["by_kind"]) == {"symbol", "behaviour", "architecture"}
    assert report["by_kind"]["symbol"]["definition_first"] == 1.0
    assert report["by_kind"]["symbol"]["ndcg@10"]["mean"] == 1.0
    # The deciding figure: files at their first result, per repository (one here), read off
    # each row's results as anyone can.
    assert {entry["corpus"] for entry in report["per_query"]} == {"toypkg"}
    recomputed = [
        first_file_ndcg(
            [r["path"] for r in entry["results"]],
            [(g["path"], g.get("primary", True)) for g in entry["gold"]],
        )
        for entry in report["per_query"]
    ]
    deciding = report["per_repository"]["all"]
    assert deciding["n_repositories"] == 1
    assert deciding["first_file_ndcg@10"]["mean"] == pytest.approx(
        sum(recomputed) / len(recomputed), abs=1e-4
    )


@pytest.mark.django_db
def test_a_warmed_evaluation_answers_the_same_and_says_it_was_warmed(toypkg, tmp_path):
    from search.evaluation.runner import evaluate

    data = load_dataset(write_rows(tmp_path / "toy.jsonl", ROWS), "questions", part="all")
    cold = evaluate(dataset=data, progress=False)
    warm = evaluate(dataset=data, progress=False, warm=True)
    assert (cold["warmed"], warm["warmed"]) == (False, True)
    assert "warm_ups" not in cold
    assert warm["warm_ups"] and all(w["complete"] for w in warm["warm_ups"].values())
    # Warming changes when the work is done, not the answers.
    assert [e["results"] for e in warm["per_query"]] == [e["results"] for e in cold["per_query"]]
