import json

import pytest

from search.evaluation.datasets import DatasetError, load_dataset


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_repo_rows(tmp_path):
    rows = tmp_path / "rows.jsonl"
    write(
        rows,
        "\n".join(
            [
                json.dumps(
                    {"query": "q1", "repo": "repo", "gold": [{"path": "a.py", "qualname": "f"}]}
                ),
                "",
                json.dumps(
                    {
                        "query": "q2",
                        "repo": "repo",
                        "ref": "",
                        "gold": [{"path": "b.py", "qualname": "C.m"}],
                    }
                ),
            ]
        ),
    )
    data = load_dataset(rows, "repo")
    assert len(data.queries) == 2 and len(data.corpora) == 1
    corpus = next(iter(data.corpora.values()))
    assert corpus.source == str(tmp_path / "repo")  # relative to the dataset file


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "rows.jsonl:2: invalid JSON"),
        (json.dumps({"repo": "r", "gold": []}), "rows.jsonl:2: missing or invalid 'query'"),
        (
            json.dumps({"query": "q", "repo": "r", "gold": [{"qualname": "f"}]}),
            "rows.jsonl:2: each gold",
        ),
        (json.dumps({"query": "q", "repo": "r", "gold": []}), "rows.jsonl:2: 'gold' is empty"),
    ],
)
def test_repo_rows_errors_name_file_and_line(tmp_path, line, message):
    good = json.dumps({"query": "q", "repo": "r", "gold": [{"path": "a.py", "qualname": "f"}]})
    rows = write(tmp_path / "rows.jsonl", good + "\n" + line + "\n")
    with pytest.raises(DatasetError, match=message):
        load_dataset(rows, "repo")


def test_cosqa(tmp_path):
    write(
        tmp_path / "code_idx_map.txt",
        json.dumps({"def a():\n    pass": 0, "def b():\n    pass": 1}),
    )
    dev = write(
        tmp_path / "cosqa-retrieval-dev-2.json",
        json.dumps(
            [
                {"idx": "q-1", "doc": "python a", "retrieval_idx": 0},
                {"idx": "q-2", "doc": "python b", "retrieval_idx": 1},
            ]
        ),
    )
    data = load_dataset(dev, "cosqa")
    assert [q.gold[0].path for q in data.queries] == ["0", "1"]
    assert data.corpora["cosqa"].snippets["1"].startswith("def b")
    assert load_dataset(tmp_path, "cosqa").name == "cosqa-retrieval-dev-2"


def test_cosqa_unknown_gold(tmp_path):
    write(tmp_path / "code_idx_map.txt", json.dumps({"def a(): pass": 0}))
    dev = write(tmp_path / "cosqa-retrieval-x.json", json.dumps([{"doc": "q", "retrieval_idx": 7}]))
    with pytest.raises(DatasetError, match="item 0: retrieval_idx 7"):
        load_dataset(dev, "cosqa")


def test_cosqa_plus_many_positives(tmp_path):
    write(tmp_path / "query.json", json.dumps([{"query_id": "q1", "query": "sort a list"}]))
    write(
        tmp_path / "codebase.json",
        json.dumps([{"code_id": f"c{i}", "code": f"def f{i}(): pass"} for i in range(3)]),
    )
    write(
        tmp_path / "pairs.json",
        json.dumps(
            [
                {"query_id": "q1", "code_id": "c0", "label": 1},
                {"query_id": "q1", "code_id": "c1", "label": 0},
                {"query_id": "q1", "code_id": "c2", "label": 1},
            ]
        ),
    )
    data = load_dataset(tmp_path, "cosqa-plus")
    assert [g.path for g in data.queries[0].gold] == ["c0", "c2"]


def test_cosqa_plus_missing_file(tmp_path):
    with pytest.raises(DatasetError, match=r"pairs\.json: missing"):
        write(tmp_path / "query.json", "[]")
        write(tmp_path / "codebase.json", "[]")
        load_dataset(tmp_path, "cosqa-plus")


def test_beir_graded(tmp_path):
    write(
        tmp_path / "corpus.jsonl",
        "\n".join(json.dumps({"_id": f"d{i}", "text": f"def g{i}(): pass"}) for i in range(3)),
    )
    write(tmp_path / "queries.jsonl", json.dumps({"_id": "q", "text": "g one"}))
    write(
        tmp_path / "qrels" / "test.tsv",
        "query-id\tcorpus-id\tscore\nq\td1\t2\nq\td2\t1\nq\td0\t0\n",
    )
    data = load_dataset(tmp_path, "beir")
    assert [(g.path, g.relevance) for g in data.queries[0].gold] == [("d1", 2.0), ("d2", 1.0)]


def test_beir_bad_qrels(tmp_path):
    write(tmp_path / "corpus.jsonl", json.dumps({"_id": "d", "text": "x"}))
    write(tmp_path / "queries.jsonl", json.dumps({"_id": "q", "text": "x"}))
    write(tmp_path / "qrels" / "test.tsv", "q\tmissing\t1\n")
    with pytest.raises(DatasetError, match=r"test\.tsv:1: corpus-id 'missing'"):
        load_dataset(tmp_path, "beir")


def test_unknown_format_and_missing_path(tmp_path):
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "nope", "repo")
    with pytest.raises(DatasetError, match="unknown format"):
        load_dataset(tmp_path, "csv")
