"""The issue dev set's reports side by side: RepoRift's (`evaluate --format issues`: locate
and its same-run baselines) and semble's (`benchmarks.semble_issues`), paired by issue id,
for the tuning part and the held-apart fifth, with 95% intervals.

    python -m benchmarks.issue_compare OURS.json [MORE_OURS.json ...] --semble SEMBLE.json \
        --out docs/eval/issues-compare.json

Several reports of ours may be given: a system's figures come from the last one that has it
(a later run of `locate` alone beside an earlier run of every system on the same trees).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from search.evaluation.questions import part_of
from search.evaluation.stats import bootstrap_ci, paired_difference

KEYS = ("acc@1", "acc@3", "acc@5", "acc@10", "mrr")


def merged_rows(paths: list[Path]) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for path in paths:
        for entry in json.loads(path.read_text())["per_query"]:
            row = rows.setdefault(entry["id"], {**entry, "systems": {}})
            row["systems"].update(entry["systems"])
    return rows


def table(rows: dict[str, dict], part: str) -> dict:
    ids = sorted(i for i in rows if part == "all" or part_of(i) == part)
    systems = sorted({s for i in ids for s in rows[i]["systems"]})
    systems = [s for s in systems if all(s in rows[i]["systems"] for i in ids)]

    def values(system: str, key: str, subset: list[str]) -> list[float]:
        return [rows[i]["systems"][system]["metrics"][key] for i in subset]

    out: dict = {"n": len(ids), "systems": {}, "locate_minus": {}}
    for system in systems:
        out["systems"][system] = {
            key: [round(v, 4) for v in bootstrap_ci(values(system, key, ids))] for key in KEYS
        }
    for other in systems:
        if other == "locate":
            continue
        out["locate_minus"][other] = {}
        for key in ("acc@1", "acc@5", "mrr"):
            diff = paired_difference(values("locate", key, ids), values(other, key, ids))
            out["locate_minus"][other][key] = [
                round(diff["difference"], 4),
                round(diff["low"], 4),
                round(diff["high"], 4),
            ]
    languages = sorted({rows[i]["language"] for i in ids})
    out["by_language"] = {
        language: {
            system: round(
                sum(
                    values(
                        system, "acc@5", sub := [i for i in ids if rows[i]["language"] == language]
                    )
                )
                / len(sub),
                3,
            )
            for system in systems
        }
        | {"n": sum(1 for i in ids if rows[i]["language"] == language)}
        for language in languages
    }
    return out


def markdown(part: str, figures: dict) -> str:
    lines = [f"{part} ({figures['n']} issues): file Acc@1 / Acc@5 / Acc@10 / MRR"]
    for system, values in figures["systems"].items():
        lines.append(
            f"- {system}: "
            + " / ".join(f"{values[k][0]:.3f}" for k in ("acc@1", "acc@5", "acc@10", "mrr"))
        )
    for other, diffs in figures["locate_minus"].items():
        lines.append(
            f"- locate minus {other}: "
            + ", ".join(f"{k} {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]" for k, d in diffs.items())
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ours", type=Path, nargs="+")
    parser.add_argument("--semble", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    rows = merged_rows([*([args.semble] if args.semble else []), *args.ours])
    report = {part: table(rows, part) for part in ("tune", "final", "all")}
    for part, figures in report.items():
        print(markdown(part, figures) + "\n")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
