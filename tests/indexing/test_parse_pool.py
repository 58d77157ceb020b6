"""Files parsed in forked processes: the same units as in process, in order, and a dead child
costs nothing but the pool."""

from __future__ import annotations

import logging
import multiprocessing
import os
from pathlib import Path

import pytest

import indexing
from indexing import parse_pool
from indexing.parsing import parse_source


@pytest.fixture
def fresh_pool(settings):
    """A pool forked for this test (after its patches) and dropped after it."""
    settings.REPORIFT = {**settings.REPORIFT, "PARSE_PROCESSES": 2}
    parse_pool._shutdown()
    parse_pool._pool = None
    yield
    parse_pool._shutdown()
    parse_pool._pool = None


def real_files() -> list[tuple[bytes, str]]:
    """This project's indexing package and a few other languages' files."""
    root = Path(indexing.__file__).parent
    files = [(p.read_bytes(), f"indexing/{p.name}") for p in sorted(root.glob("*.py"))]
    files += [
        (b"package main\n\n// Fine says so.\nfunc Fine() int { return 1 }\n", "main.go"),
        (b"# Title\n\nSome prose about setup.\n", "README.md"),
        (b"fn main() { println!(\"hi\"); }\n", "src/main.rs"),
    ]
    return files


def summary(parsed) -> list[tuple]:
    return [(u.kind, u.qualname, u.start_line, u.end_line, u.code) for u in parsed.units]


def test_the_pool_parses_as_the_process_does_in_order(fresh_pool):
    files = real_files()
    assert len(files) >= parse_pool.MIN_FILES
    pooled = list(parse_pool.parsed_in_order(files))
    assert parse_pool._pool is not None  # the files went to the pool
    expected = [parse_source(data, path=path) for data, path in files]
    assert [summary(p) for p in pooled] == [summary(p) for p in expected]
    assert [p.language for p in pooled] == [p.language for p in expected]


def test_a_few_files_are_parsed_in_process(fresh_pool):
    files = real_files()[: parse_pool.MIN_FILES - 1]
    assert len(list(parse_pool.parsed_in_order(files))) == len(files)
    assert parse_pool._pool is None


def _dies_in_a_child(data: bytes, *, path: str = ""):
    if path == "killer.go" and multiprocessing.parent_process() is not None:
        os._exit(1)  # a parser crashing its process, as a hostile file can
    return parse_source(data, path=path)


def test_a_child_that_dies_leaves_its_files_to_the_process(fresh_pool, monkeypatch, caplog):
    monkeypatch.setattr(parse_pool, "parse_source", _dies_in_a_child)
    files = real_files()
    files.insert(3, (b"package main\n\nfunc Survivor() int { return 2 }\n", "killer.go"))
    with caplog.at_level(logging.WARNING, logger="indexing.parse_pool"):
        parsed = list(parse_pool.parsed_in_order(files))
    assert len(parsed) == len(files)
    assert [u.name for u in parsed[3].units if u.kind == "function"] == ["Survivor"]
    assert [summary(p) for p in parsed] == [summary(parse_source(d, path=p)) for d, p in files]
    assert "a parsing process died" in caplog.text
    assert parse_pool._pool is None  # dropped; the next chunk forks a new one


def test_where_there_is_no_pool(settings, monkeypatch):
    settings.REPORIFT = {**settings.REPORIFT, "PARSE_PROCESSES": 1}
    assert parse_pool.processes() == 1
    settings.REPORIFT = {**settings.REPORIFT, "PARSE_PROCESSES": 0}
    assert 1 <= parse_pool.processes() <= parse_pool.MAX_PROCESSES
    monkeypatch.setattr(parse_pool, "_in_celery_worker", True)
    assert parse_pool.processes() == 1  # a Celery worker's processes are sized to the cores
