"""A label run's files, in CoSQA+'s layout: `query.json`, `codebase.json` and `pairs.json`
(0/1 labels), which `evaluate --format cosqa-plus` reads, beside `plan.json` (what the run
labels, so that a resumed run labels the same pairs) and `trail.jsonl` (every pair's screener
answer, test program, outcome and verdict, appended as each pair is decided)."""

from __future__ import annotations

import json
from pathlib import Path


def write_json(path: Path, data) -> None:
    """Written whole, then moved into place: an interrupted write leaves the old file."""
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)


def read_trail(path: Path) -> dict[tuple[str, str], dict]:
    """The latest entry per (query_id, code_id); a torn last line (the run was killed while
    writing it) is ignored, and its pair labelled again."""
    entries: dict[tuple[str, str], dict] = {}
    if not path.exists():
        return entries
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and "query_id" in entry and "code_id" in entry:
            entries[(entry["query_id"], entry["code_id"])] = entry
    return entries


def append_trail(path: Path, entry: dict) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        fh.flush()


def write_pairs(out_dir: Path, plan: dict, trail: dict[tuple[str, str], dict]) -> list[dict]:
    """pairs.json from the trail, in the plan's order; pairs without a label are left out."""
    pairs = []
    for query in plan["queries"]:
        for cid in plan["candidates"].get(query["query_id"], []):
            entry = trail.get((query["query_id"], cid))
            if entry is not None and entry.get("label") in (0, 1):
                pairs.append(
                    {"query_id": query["query_id"], "code_id": cid, "label": entry["label"]}
                )
    write_json(out_dir / "pairs.json", pairs)
    return pairs
