"""The embedder's training data: what it is made of, and what it must never contain."""

import ast
import json

import pytest

from benchmarks.embedder_data import (
    cosqa_pairs,
    data_packages,
    hard_negative,
    package_units,
)
from benchmarks.package_benchmark import DEV_PACKAGES, TRAIN_PACKAGES
from indexing.unit_text import MAX_CHARS


def test_no_dev_package_and_no_companion_of_one():
    packages = data_packages()
    assert not set(packages) & set(DEV_PACKAGES)
    assert not [p for p in packages if p.startswith(("crewai", "httpx", "click_", "rich_"))]
    assert {"tqdm", "pyparsing", "oauthlib"} <= set(packages)  # train packages are data
    assert set(TRAIN_PACKAGES) & set(packages)


def test_no_held_out_project_by_import_name_or_distribution():
    listed = frozenset({"tqdm", "prompttoolkit"})  # normalised, as benchmarks.heldout reads them
    packages = data_packages(listed)
    assert "tqdm" not in packages and "prompt_toolkit" not in packages
    assert {"pyparsing", "oauthlib"} <= set(packages)


def test_none_of_reporifts_own_packages():
    # They were once listed by hand, and the apps added later (labels, sandbox) slipped in.
    own = {"reporift", "indexing", "search", "agents", "accounts", "labels", "sandbox"}
    assert not own & set(data_packages())


@pytest.fixture(scope="module")
def tqdm_pairs():
    pairs, units = package_units("tqdm")
    assert pairs and units
    return pairs, units


def test_code_texts_carry_no_docstring_and_no_test_file(tqdm_pairs):
    pairs, _ = tqdm_pairs
    whole = [p for p in pairs if len(p["code"]) < MAX_CHARS]  # longer texts are cut mid-code
    assert len(whole) > 0.8 * len(pairs)
    for pair in pairs:
        assert pair["query"] not in pair["code"]
    for pair in whole:
        tree = ast.parse(pair["code"])
        function = tree.body[0]
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef), pair["qualname"]
        assert ast.get_docstring(function) is None, pair["qualname"]
        assert "/tests/" not in pair["path"] and "test_" not in pair["path"].rsplit("/", 1)[-1]


def test_hard_negative_is_a_sibling_not_the_answer(tqdm_pairs):
    from collections import defaultdict

    pairs, units = tqdm_pairs
    by_word = defaultdict(list)
    for index, unit in enumerate(units):
        for word in unit.name_words:
            by_word[word].append(index)
    negatives = [hard_negative(p, units, by_word) for p in pairs]
    assert all(n != p["code"] for n, p in zip(negatives, pairs, strict=True))
    assert sum(1 for n in negatives if n) > 0.9 * len(pairs)


def test_cosqa_positives_with_judged_or_sibling_negatives(tmp_path):
    rows = [
        {
            "idx": "a",
            "query": "python read json file",
            "label": 1,
            "code": "def read_json(path):\n    return json.load(open(path))",
        },
        {
            "idx": "b",
            "query": "python read json file fast",
            "label": 0,
            "code": "def write_json(path, data):\n    json.dump(data, open(path, 'w'))",
        },
        {
            "idx": "c",
            "query": "sort a dict by value",
            "label": 1,
            "code": "def sort_by_value(d):\n    return sorted(d.items(), key=lambda i: i[1])",
        },
        {
            "idx": "d",
            "query": "unrelated words here",
            "label": 0,
            "code": "def sort_by_key(d):\n    return sorted(d.items())",
        },
    ]
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(rows))
    pairs = {p["query"]: p for p in cosqa_pairs(path)}
    assert set(pairs) == {"python read json file", "sort a dict by value"}  # label 1 only
    judged = pairs["python read json file"]
    assert judged["source"] == "cosqa:judged" and "write_json" in judged["negative"]
    sibling = pairs["sort a dict by value"]
    assert sibling["source"] == "cosqa:sibling" and "sort_by_key" in sibling["negative"]
