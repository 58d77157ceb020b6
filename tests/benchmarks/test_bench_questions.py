"""The one-run measurement of a question set: which rows it runs, and the summary it writes from
the paired comparisons (the deciding file figure per repository, the span figure beside)."""

import json

import pytest

from benchmarks.bench_questions import (
    chosen_set,
    kept_from_rows,
    phase2_markdown,
    rows_digests,
    summary_markdown,
)
from benchmarks.questions import compare


def report(values: dict[str, tuple[float, float]]) -> dict:
    """Rows `<corpus>-<n>` in Go, each with its (file, span) NDCG@10."""
    return {
        "per_query": [
            {
                "id": query_id,
                "corpus": query_id.split("-")[0],
                "language": "go",
                "metrics": dict.fromkeys(("success@1", "success@10", "mrr"), span)
                | {"ndcg@10": span, "first_file_ndcg@10": file},
            }
            for query_id, (file, span) in values.items()
        ]
    }


def test_the_summary_gives_each_system_per_repository_and_phase_1s_differences():
    phase1 = report({"fzf-1": (1.0, 0.5), "fzf-2": (1.0, 0.5), "cli-1": (0.0, 1.0)})
    semble = report({"fzf-1": (0.5, 0.5), "fzf-2": (0.5, 0.5), "cli-1": (0.5, 0.0)})
    bm25 = report({"fzf-1": (0.0, 0.0), "fzf-2": (0.0, 0.0), "cli-1": (0.0, 0.0)})
    table = summary_markdown(compare(semble, phase1), compare(bm25, phase1))
    lines = table.splitlines()
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| all", "| go"]
    # Per repository: phase 1 (1.0 + 0.0) / 2, semble 0.5, BM25 0; spans 0.75 / 0.25 / 0. No
    # spread within a repository, so no interval; beyond the noise in bold.
    assert lines[2].startswith(
        "| all | 3 | 2 | 0.500 | 0.500 | 0.000 | +0.000 [+0.000, +0.000] "
        "| **+0.500 [+0.500, +0.500]** |"
    )
    assert "| 0.750 / 0.250 / 0.000 |" in lines[2]


def test_phase_2_is_set_against_phase_1_and_semble():
    phase1 = report({"fzf-1": (1.0, 0.5), "fzf-2": (0.0, 0.5), "cli-1": (0.0, 1.0)})
    phase2 = report({"fzf-1": (1.0, 1.0), "fzf-2": (1.0, 1.0), "cli-1": (0.0, 1.0)})
    semble = report({"fzf-1": (0.5, 0.5), "fzf-2": (0.5, 0.5), "cli-1": (0.5, 0.0)})
    table = phase2_markdown(compare(phase1, phase2), compare(semble, phase2))
    lines = table.splitlines()
    assert lines[0].startswith("| questions | n | phase 1 | phase 2 | semble |")
    # Per repository: phase 1 (0.5 + 0.0) / 2, phase 2 (1.0 + 0.0) / 2, semble 0.5; spans
    # 0.75 / 1.0.
    assert lines[2].startswith("| all | 3 | 0.250 | 0.500 | 0.500 | +0.250 [")
    assert "| 0.750 / 1.000 |" in lines[2]


def test_the_rows_are_copied_all_or_those_named_with_their_manifest(tmp_path):
    rows = tmp_path / "large" / "dev"
    rows.mkdir(parents=True)
    for name in ("git", "rocksdb", "cargo"):
        (rows / f"{name}.jsonl").write_text(f'{{"id": "{name}-001"}}\n')
    (tmp_path / "large" / "corpora.json").write_text("{}")
    every = chosen_set(rows, None, tmp_path / "a")
    assert sorted(p.name for p in every.iterdir()) == ["cargo.jsonl", "git.jsonl", "rocksdb.jsonl"]
    chosen = chosen_set(rows, ["git", "cargo"], tmp_path / "b")
    assert sorted(p.name for p in chosen.iterdir()) == ["cargo.jsonl", "git.jsonl"]
    assert (chosen.parent / "corpora.json").resolve() == tmp_path / "large" / "corpora.json"
    # A copy: rows written to the set while it is measured do not reach this run.
    (rows / "git.jsonl").write_text('{"id": "git-002"}\n')
    assert (chosen / "git.jsonl").read_text() == '{"id": "git-001"}\n'
    assert set(rows_digests(chosen)) == {"cargo.jsonl", "git.jsonl"}
    with pytest.raises(SystemExit, match="no rows etcd"):
        chosen_set(rows, ["etcd"], tmp_path / "c")


def test_baselines_are_kept_only_from_a_run_over_the_same_rows(tmp_path):
    summary = tmp_path / "langs-files-summary-tune.json"
    with pytest.raises(SystemExit, match="no earlier run"):
        kept_from_rows(summary, {"fzf.jsonl": "a"})
    summary.write_text(json.dumps({"rows_sha256": {"fzf.jsonl": "a"}}))
    kept_from_rows(summary, {"fzf.jsonl": "a"})
    with pytest.raises(SystemExit, match="other rows"):
        kept_from_rows(summary, {"fzf.jsonl": "b"})
