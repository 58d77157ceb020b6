"""Evaluation datasets: five formats, one shape.

A dataset is a set of corpora (whole repositories, or snippet collections indexed like a
repository whose files are the snippets) and queries with gold units. Malformed input fails with
the file, the line (or item) and the reason.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from search.evaluation.dataset_types import (
    Corpus,
    DatasetError,
    EvalDataset,
    EvalQuery,
    GoldUnit,
    check_test_program,
    read_json,
    read_jsonl,
    require,
)
from search.evaluation.questions import load_questions

FORMATS = ("repo", "cosqa", "cosqa-plus", "beir", "questions")


def load_dataset(path: str | Path, fmt: str, *, part: str = "tune") -> EvalDataset:
    """`part` chooses the tuning rows or the held-apart fifth of a `questions` set (other
    formats have no parts)."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    loaders = {
        "repo": load_repo_rows,
        "cosqa": load_cosqa,
        "cosqa-plus": load_cosqa_plus,
        "beir": load_beir,
    }
    if fmt == "questions":
        return load_questions(path, part=part)
    if fmt not in loaders:
        raise DatasetError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    return loaders[fmt](path)


def load_repo_rows(path: Path) -> EvalDataset:
    corpora: dict[str, Corpus] = {}
    queries = []
    for number, row in read_jsonl(path):
        where = f"{path}:{number}"
        query = require(row, "query", where)
        repo = require(row, "repo", where)
        ref = row.get("ref") or ""
        test = row.get("test") or ""
        if test:
            check_test_program(test, where)
        gold_rows = row.get("gold", []) if test else require(row, "gold", where, list)
        if not isinstance(gold_rows, list):
            raise DatasetError(f"{where}: 'gold' must be a list")
        gold = []
        for item in gold_rows:
            # Without a qualname, a gold entry is a whole file (any unit in it answers).
            if not isinstance(item, dict) or not item.get("path"):
                raise DatasetError(f"{where}: each gold entry needs a 'path'")
            qualname = item.get("qualname") or ""
            gold.append(GoldUnit(item["path"], qualname, float(item.get("relevance", 1))))
        if not gold and not test:
            raise DatasetError(f"{where}: 'gold' is empty (give gold units or a 'test' program)")
        if not repo.startswith(("http://", "https://", "git@", "ssh://", "file://", "/")):
            repo = str((path.parent / repo).resolve())  # relative to the dataset file
        key = f"{repo}@{ref}"
        corpora.setdefault(key, Corpus(key=key, kind="repo", source=repo, ref=ref))
        kind = row.get("kind") or ""
        queries.append(
            EvalQuery(str(row.get("id", number)), query, key, gold, kind=kind, test=test)
        )
    if not queries:
        raise DatasetError(f"{path}: no rows")
    return EvalDataset(path.stem, "repo", corpora, queries)


def load_cosqa(path: Path) -> EvalDataset:
    """`cosqa-retrieval-*.json` (query `doc`, gold `retrieval_idx`) and `code_idx_map.txt`."""
    if path.is_dir():
        candidates = sorted(path.glob("cosqa-retrieval-*.json"))
        if len(candidates) != 1:
            raise DatasetError(
                f"{path}: expected one cosqa-retrieval-*.json, found {len(candidates)}"
            )
        path = candidates[0]
    map_file = path.parent / "code_idx_map.txt"
    code_map = read_json(map_file)
    if not isinstance(code_map, dict):
        raise DatasetError(f"{map_file}: expected a JSON object of code -> id")
    snippets = {str(idx): code for code, idx in code_map.items()}
    rows = read_json(path)
    if not isinstance(rows, list):
        raise DatasetError(f"{path}: expected a JSON list")
    queries = []
    for number, row in enumerate(rows):
        where = f"{path}: item {number}"
        if not isinstance(row, dict):
            raise DatasetError(f"{where}: expected an object")
        query = require(row, "doc", where)
        gold_id = row.get("retrieval_idx")
        if gold_id is None or str(gold_id) not in snippets:
            raise DatasetError(f"{where}: retrieval_idx {gold_id!r} is not in {map_file.name}")
        queries.append(
            EvalQuery(str(row.get("idx", number)), query, "cosqa", [GoldUnit(str(gold_id))])
        )
    corpus = Corpus(key="cosqa", kind="snippets", snippets=snippets)
    return EvalDataset(path.stem, "cosqa", {"cosqa": corpus}, queries)


def _records(data: Any, where: str, id_key: str, text_keys: tuple[str, ...]) -> dict[str, str]:
    """CoSQA+ files come as a list of objects or as one {id: text} object."""
    if isinstance(data, dict):
        return {str(k): str(v) for k, v in data.items()}
    if not isinstance(data, list):
        raise DatasetError(f"{where}: expected a list or an object")
    out = {}
    for number, item in enumerate(data):
        if not isinstance(item, dict) or id_key not in item:
            raise DatasetError(f"{where}: item {number} needs {id_key!r}")
        text = next((item[k] for k in text_keys if isinstance(item.get(k), str)), None)
        if text is None:
            raise DatasetError(f"{where}: item {number} needs one of {text_keys}")
        out[str(item[id_key])] = text
    return out


def load_cosqa_plus(path: Path) -> EvalDataset:
    files = {name: path / f"{name}.json" for name in ("query", "codebase", "pairs")}
    for file in files.values():
        if not file.exists():
            raise DatasetError(
                f"{file}: missing (cosqa-plus needs query.json, codebase.json, pairs.json)"
            )
    query_text = _records(
        read_json(files["query"]), str(files["query"]), "query_id", ("query", "doc")
    )
    snippets = _records(read_json(files["codebase"]), str(files["codebase"]), "code_id", ("code",))
    pairs = read_json(files["pairs"])
    if not isinstance(pairs, list):
        raise DatasetError(f"{files['pairs']}: expected a list of pairs")
    gold: dict[str, list[GoldUnit]] = {}
    for number, pair in enumerate(pairs):
        where = f"{files['pairs']}: item {number}"
        if not isinstance(pair, dict) or "query_id" not in pair or "code_id" not in pair:
            raise DatasetError(f"{where}: needs query_id, code_id and label")
        qid, cid = str(pair["query_id"]), str(pair["code_id"])
        if qid not in query_text or cid not in snippets:
            raise DatasetError(f"{where}: unknown query_id {qid!r} or code_id {cid!r}")
        gold.setdefault(qid, [])
        if int(pair.get("label", 1)) > 0:
            gold[qid].append(GoldUnit(cid))
    queries = [
        EvalQuery(qid, query_text[qid], "codebase", units) for qid, units in gold.items() if units
    ]
    corpus = Corpus(key="codebase", kind="snippets", snippets=snippets)
    return EvalDataset(path.name, "cosqa-plus", {"codebase": corpus}, queries)


def load_beir(path: Path) -> EvalDataset:
    corpus_file, queries_file = path / "corpus.jsonl", path / "queries.jsonl"
    qrels_file = path / "qrels" / "test.tsv"
    for file in (corpus_file, queries_file, qrels_file):
        if not file.exists():
            raise DatasetError(f"{file}: missing")
    snippets = {}
    for number, row in read_jsonl(corpus_file):
        doc_id = str(require(row, "_id", f"{corpus_file}:{number}"))
        snippets[doc_id] = str(row.get("text") or row.get("title") or "")
    texts = {
        str(require(r, "_id", f"{queries_file}:{n}")): require(r, "text", f"{queries_file}:{n}")
        for n, r in read_jsonl(queries_file)
    }
    gold: dict[str, list[GoldUnit]] = {}
    with open(qrels_file, newline="", encoding="utf-8") as fh:
        for number, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if number == 1 and row and not row[-1].strip().lstrip("-").isdigit():
                continue  # header
            if len(row) < 3:
                raise DatasetError(f"{qrels_file}:{number}: expected query-id, corpus-id, score")
            qid, cid, score = row[0], row[1], row[-1]
            if cid not in snippets:
                raise DatasetError(f"{qrels_file}:{number}: corpus-id {cid!r} not in corpus")
            if qid not in texts:
                raise DatasetError(f"{qrels_file}:{number}: query-id {qid!r} not in queries")
            try:
                grade = float(score)
            except ValueError as exc:
                raise DatasetError(
                    f"{qrels_file}:{number}: score {score!r} is not a number"
                ) from exc
            if grade > 0:
                gold.setdefault(qid, []).append(GoldUnit(cid, relevance=grade))
    queries = [EvalQuery(qid, texts[qid], "corpus", units) for qid, units in gold.items()]
    return EvalDataset(
        path.name, "beir", {"corpus": Corpus("corpus", "snippets", snippets=snippets)}, queries
    )
