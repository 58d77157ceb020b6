"""Ablation output: a markdown table and a bar chart of NDCG@10 and Success@10."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def ablation_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| configuration | Success@1 | Success@10 | MRR | NDCG@10 | p50 ms |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['configuration']} | {row['success@1']:.3f} | {row['success@10']:.3f} "
            f"| {row['mrr']:.3f} | {row['ndcg@10']:.3f} | {row['latency_p50_ms']:.0f} |"
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
