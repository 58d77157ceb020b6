"""The one-run speed benchmark: the three figures of each tree joined from the three reports its
steps wrote, and part one's table drawn from the joined report."""

from pathlib import Path

import pytest

from benchmarks import run, speed


def _reports(tmp_path: Path) -> tuple[dict, dict, dict, dict[str, Path]]:
    names = {"git": tmp_path / "git", "etcd": tmp_path / "etcd"}
    first = {
        "trees": [
            {
                "tree": str(names[name]),
                "time_to_first_answer_s": seconds,
                "semble_time_to_first_answer_s": peer,
                "ratio_to_semble": round(seconds / peer, 2),
                "loadavg_1min_before": 1.1,
            }
            for name, seconds, peer in (("git", 40.0, 32.0), ("etcd", 12.0, 10.0))
        ]
    }

    def timed(units: int, ours: float, theirs: float) -> dict:
        return {
            "units": units,
            "ours": {"p50_ms": ours, "p95_ms": ours * 2, "load": [1.0, 0.9, 0.8]},
            "semble": {"p50_ms": theirs, "p95_ms": theirs * 4, "load": [1.2, 0.9, 0.8]},
            "ratio_p50": round(ours / theirs, 2),
            "ratio_p95": round(ours / theirs / 2, 2),
        }

    per_query = {"repositories": {"git": timed(37876, 7.4, 5.5), "etcd": timed(12696, 5.4, 5.3)}}
    across = {
        "repositories": 2,
        "units": 50572,
        "queries": 40,
        "load_before": [0.9, 0.8, 0.7],
        "load_after": [1.0, 0.8, 0.7],
        "routed": {"first_ms": 30.0, "next_p50_ms": 12.0, "next_p95_ms": 20.0},
        "every_repository_ranked": {"next_p50_ms": 18.0},
    }
    return first, per_query, across, names


def test_each_tree_has_its_first_answer_and_per_query_figures_beside_semble(tmp_path):
    joined = speed.combined(*_reports(tmp_path))
    git = joined["trees"]["git"]
    assert (git["units"], git["first_answer_s"], git["semble_first_answer_s"]) == (37876, 40, 32)
    assert (git["query_p50_ms"], git["semble_query_p50_ms"], git["query_ratio_p50"]) == (
        7.4,
        5.5,
        1.35,
    )
    assert git["first_answer_load"] == 1.1 and len(git["query_load"]) == 3
    across = joined["across"]
    assert (across["first_ms"], across["next_p50_ms"], across["next_p95_ms"]) == (30, 12, 20)
    # semble has no search over several repositories: a caller asks each in turn.
    assert across["semble_every_repository_in_turn_ms"] == 10.8
    assert across["load"] == [[0.9, 0.8, 0.7], [1.0, 0.8, 0.7]]


def test_part_one_draws_one_row_per_tree_and_the_search_across_them(tmp_path):
    joined = speed.combined(*_reports(tmp_path))
    report = {
        "machine": "2 cores",
        "date": "2026-12-07 14:00 UTC",
        "load_before": [0.9, 0.8, 0.7],
        "load_after": [1.1, 0.9, 0.7],
    } | joined
    lines = run.against_semble(report)
    rows = [line for line in lines if line.startswith("| git") or line.startswith("| etcd")]
    assert rows[0] == "| git | 37,876 | 40.0 / 32.0 | 7.4 / 5.5 | 14.8 / 22.0 | 1.35 / 0.67 |"
    assert len(rows) == 2
    assert "All 2 repositories at once (50,572 units" in lines[-1]
    assert "10.8 ms" in lines[-1]


def test_a_question_file_without_its_corpus_is_refused(tmp_path):
    rows = tmp_path / "questions" / "dev" / "nowhere.jsonl"
    rows.parent.mkdir(parents=True)
    rows.write_text("")
    (tmp_path / "questions" / "corpora.json").write_text("{}")
    with pytest.raises(SystemExit, match="no corpus named nowhere"):
        speed.trees([rows])
