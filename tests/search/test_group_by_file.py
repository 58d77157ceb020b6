"""Results grouped by file: files in the order of their best result, each with its best units."""

from types import SimpleNamespace

from search.file_groups import group_by_file
from search.results import SearchResult


def result(path: str, qualname: str, score: float, lines=(1, 5), repository="shop"):
    unit = SimpleNamespace(path=path, qualname=qualname, start_line=lines[0], end_line=lines[1])
    return SearchResult(0, unit, score, {"S1": 1}, repository=repository)


def test_files_come_in_the_order_of_their_best_result_with_their_best_units():
    ranked = [
        result("pool.py", "Pool.get", 3.0, (10, 20)),
        result("transport.py", "Transport.send", 2.5, (5, 9)),
        result("pool.py", "Pool.put", 2.0, (22, 30)),
        result("pool.py", "Pool.close", 1.5),
        result("pool.py", "Pool.clear", 1.0),
        result("pool.py", "Pool.size", 0.5),
        result("pool.py", "Pool.size", 0.4, repository="other"),
    ]
    groups = group_by_file(ranked, per_file=3)
    assert [(g.rank, g.path, g.repository) for g in groups] == [
        (1, "pool.py", "shop"),
        (2, "transport.py", "shop"),
        (3, "pool.py", "other"),
    ]
    pool = groups[0]
    assert [r.unit.qualname for r in pool.results] == ["Pool.get", "Pool.put", "Pool.close"]
    assert pool.matched == 5 and pool.more == 2 and pool.score == 3.0
    assert pool.lines[:2] == [(10, 20), (22, 30)]


def test_rows_as_clients_show_them_are_grouped_alike():
    from search.file_groups import grouped_results

    rows = [
        {"path": "pool.py", "repository": "shop", "start_line": 1, "end_line": 9, "score": 3.0},
        {"path": "net.py", "repository": "shop", "start_line": 4, "end_line": 6, "score": 2.0},
        {"path": "pool.py", "repository": "shop", "start_line": 12, "end_line": 20, "score": 1.0},
    ]
    files = grouped_results(rows, per_file=1)
    assert [(f["rank"], f["path"], f["matched"]) for f in files] == [
        (1, "pool.py", 2),
        (2, "net.py", 1),
    ]
    assert files[0]["lines"] == [[1, 9]] and files[0]["units"] == [rows[0]]
