"""Ablation output: a markdown table and a bar chart of NDCG@10 and Success@10."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _with_ci(row: dict[str, Any], key: str) -> str:
    low, high = row.get("ci95", {}).get(key, (None, None))
    return f"{row[key]:.3f}" if low is None else f"{row[key]:.3f} [{low:.3f}, {high:.3f}]"


def difference_cell(row: dict[str, Any], against: str, key: str) -> str:
    """A paired difference as a table cell: "+0.081 [+0.050, +0.112]", marked when in noise."""
    diff = row.get(against, {}).get(key)
    if diff is None:
        return "—"
    mark = "" if diff["significant"] else " (noise)"
    return f"{diff['difference']:+.3f} [{diff['low']:+.3f}, {diff['high']:+.3f}]{mark}"


def ablation_table(rows: Sequence[dict[str, Any]]) -> str:
    """Figures with 95% intervals, and the paired difference in Success@1 and MRR from the
    baseline (S1 alone: plain MiniLM over the raw unit source)."""
    lines = [
        "| configuration | Success@1 | Success@10 | MRR | NDCG@10 | ΔS@1 vs S1 only "
        "| ΔMRR vs S1 only | p50 ms |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['configuration']} | {_with_ci(row, 'success@1')} "
            f"| {_with_ci(row, 'success@10')} | {_with_ci(row, 'mrr')} "
            f"| {_with_ci(row, 'ndcg@10')} | {difference_cell(row, 'vs_baseline', 'success@1')} "
            f"| {difference_cell(row, 'vs_baseline', 'mrr')} | {row['latency_p50_ms']:.0f} |"
        )
    return "\n".join(lines)


def ablation_plot(rows: Sequence[dict[str, Any]], path: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [row["configuration"] for row in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows)), 4))
    width = 0.4
    ax.bar([i - width / 2 for i in x], [r["ndcg@10"] for r in rows], width, label="NDCG@10")
    ax.bar([i + width / 2 for i in x], [r["success@10"] for r in rows], width, label="Success@10")
    ax.set_xticks(list(x), labels, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def per_query_diff(
    candidate: dict[str, Any], baseline: dict[str, Any], *, examples: int = 5
) -> dict[str, Any]:
    """What `candidate` fixed and broke against `baseline` on the same queries: where the first
    relevant result moved into or out of first place, with the worst examples of each."""

    def first_hit(entry: dict[str, Any]) -> float:
        rr = entry["metrics"]["mrr"]
        return 1 / rr if rr else float("inf")

    fixed, broken = [], []
    for new, old in zip(candidate["per_query"], baseline["per_query"], strict=True):
        before, after = first_hit(old), first_hit(new)
        row = {
            "query": new["query"],
            "gold": new["gold"][0]["qualname"] or new["gold"][0]["path"],
            "rank_before": before,
            "rank_after": after,
            "first_after": new["results"][0]["qualname"] if new["results"] else "",
            "first_before": old["results"][0]["qualname"] if old["results"] else "",
        }
        if after == 1 < before:
            fixed.append(row)
        elif before == 1 < after:
            broken.append(row)
    fixed.sort(key=lambda r: -r["rank_before"])
    broken.sort(key=lambda r: -r["rank_after"])
    return {
        "fixed": len(fixed),
        "broken": len(broken),
        "fixed_examples": fixed[:examples],
        "broken_examples": broken[:examples],
    }


def per_query_diff_markdown(diff: dict[str, Any], candidate: str, baseline: str) -> str:
    def rank(value: float) -> str:
        return "not in top 10" if value == float("inf") else str(int(value))

    lines = [
        f"{candidate} puts the answer first where {baseline} did not on {diff['fixed']} queries, "
        f"and loses first place on {diff['broken']}.",
        "",
        "| | query | answer | its rank before → after | first before → after |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, key in (("fixed", "fixed_examples"), ("broken", "broken_examples")):
        for row in diff[key]:
            lines.append(
                f"| {label} | {row['query'][:70]} | `{row['gold']}` "
                f"| {rank(row['rank_before'])} → {rank(row['rank_after'])} "
                f"| `{row['first_before']}` → `{row['first_after']}` |"
            )
    return "\n".join(lines)
