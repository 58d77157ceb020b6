import json

from benchmarks.judge_quality import cosqa_dev_pairs, queries_in

SNIPPETS = {
    "def read_json(path):\n    return json.load(open(path))": 0,
    "def write_json(path, data):\n    json.dump(data, open(path, 'w'))": 1,
    "def add(a, b):\n    return a + b": 2,
    "def mean(values):\n    return sum(values) / len(values)": 3,
    "def shout(text):\n    return text.upper()": 4,
    "def first(items):\n    return items[0]": 5,
}
QUERIES = [
    ("q-read", "python read json file", 0),
    ("q-write", "python write json to file", 1),
    ("q-add", "python add two numbers", 2),
    ("q-mean", "python mean of values", 3),
]


def _cosqa_dir(tmp_path):
    (tmp_path / "code_idx_map.txt").write_text(json.dumps(SNIPPETS))
    rows = [{"idx": i, "doc": doc, "retrieval_idx": gold} for i, doc, gold in QUERIES]
    (tmp_path / "cosqa-retrieval-dev-500.json").write_text(json.dumps(rows))
    return tmp_path


def test_each_query_gives_its_gold_and_a_non_gold_pair(tmp_path):
    pairs = cosqa_dev_pairs(_cosqa_dir(tmp_path), 4, seed=7)
    assert len(pairs) == 8
    by_query = {}
    for pair in pairs:
        by_query.setdefault(pair["query"], []).append(pair)
    for _, doc, gold in QUERIES:
        labelled = {p["id"].split(":")[1]: p["gold"] for p in by_query[doc]}
        assert labelled.pop(str(gold)) == 1
        assert list(labelled.values()) == [0]


def test_held_apart_queries_are_never_sampled(tmp_path):
    cosqa = _cosqa_dir(tmp_path)
    report = tmp_path / "calibration.json"
    first = cosqa_dev_pairs(cosqa, 2, seed=7)
    report.write_text(json.dumps({"per_pair": [{**p, "code": ""} for p in first]}))
    held = queries_in(report)
    assert len(held) == 2
    others = cosqa_dev_pairs(cosqa, 4, seed=7, leave_out=held)
    assert len(others) == 4  # only two queries are left to sample
    assert not {p["id"].split(":")[0] for p in others} & held
