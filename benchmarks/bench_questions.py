"""One run that measures a question set the way it is decided: phase 1 (fast mode on the static
tier, as a user gets it seconds after indexing), semble given our own static table (the same-run
baseline) and BM25 alone, each judged by file NDCG@10 averaged per repository (the deciding
figure, search.evaluation.repositories) with the span NDCG@10 beside it, and paired.

    make bench-questions SET=benchmarks/questions/languages/dev    # reports langs-files-*

    python -m benchmarks.bench_questions --set DIR --name NAME [--part tune] [--only ROWS ...] \
        --semble-python PY --semble-model DIR [--out-dir docs/eval]

It writes, under --out-dir: `NAME-phase1-PART.json` and `NAME-bm25-PART.json` (`manage.py
evaluate`), `NAME-semble-PART.json` (`benchmarks.semble_questions`), the paired comparisons
`NAME-compare-semble-PART.json` and `NAME-compare-bm25-PART.json` (`benchmarks.questions
compare`), and `NAME-summary-PART.json` / `.md`: per language (or per kind) the three systems'
figures, the differences with their 95% intervals, the commit measured and the commands run.

Indexing stops after phase 1 (REPORIFT_PHASE2_MAX_UNITS=1): phase 1 is what is measured, and
phase 2 of a large set's units takes hours on two cores. With `--phase2` indexing goes on
through phase 2 and it is measured too, on the same index (it keeps phase 1's vectors):
`NAME-phase2-PART.json` and its comparisons with phase 1 and semble
(`NAME-compare-phase2-{phase1,semble}-PART.json`), a phase-2 table in the summary. Give such
a run a data dir of its own: an index that stopped after phase 1 is reused as it is. The data
dir is REPORIFT_DATA_DIR (else var/); the other languages' corpora are where
`benchmarks.corpora fetch` put them (REPORIFT_CORPORA, else var/corpora). semble's model folder
is made from the static table of this data dir when it does not exist, and refused when it holds
another table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import ROOT, machine_line
from benchmarks.questions import compare
from search.evaluation.metrics import DECIDING_KEY

_TABLE = (
    "import json; from pathlib import Path; from django.conf import settings; "
    "from indexing.embedding import get_embedder; "
    "from indexing.static_tier import get_static_embedder, table_file; "
    "tier = get_static_embedder(); "
    "print(json.dumps({'table': str(table_file(Path(settings.DATA_DIR) / 'models', "
    "tier.model_id)), 'tokenizer': str(get_embedder().tokenizer_file)}))"
)


def _run(command: list[str], env: dict[str, str], log: list[str]) -> str:
    log.append(shlex.join(command))
    print(f"$ {log[-1]}", file=sys.stderr, flush=True)
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {log[-1]}")
    return done.stdout


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def semble_model(python: str, folder: Path, env: dict[str, str], log: list[str]) -> dict:
    """semble's model2vec folder of this data dir's static table: made when missing, refused
    when it holds another table (semble would then be given other vectors than phase 1's)."""
    printed = _run([sys.executable, "manage.py", "shell", "-c", _TABLE], env, log)
    found = json.loads(printed.strip().splitlines()[-1])
    table = Path(found["table"])
    facts = folder / "table.json"
    if not facts.is_file():
        _run(
            [
                python,
                "-m",
                "benchmarks.semble_questions",
                "table",
                "--table",
                str(table),
                "--tokenizer",
                found["tokenizer"],
                "--out",
                str(folder),
            ],
            env,
            log,
        )
    recorded = json.loads(facts.read_text())
    if recorded["table_sha256"] != _sha256(table):
        raise SystemExit(
            f"{folder} holds another static table than {table}: remove the folder or name "
            "another, and it is made again from this one"
        )
    return recorded


def chosen_set(rows: Path, only: list[str] | None, scratch: Path) -> Path:
    """A copy of the set's rows files (all, or those named) beside a link to its manifest, in
    `scratch`: the three systems read the same rows though the set is edited meanwhile, and a
    set whose corpora are not all fetched yet is measured on those that are."""
    files = {f.stem: f for f in sorted(rows.glob("*.jsonl"))}
    unknown = sorted(set(only or ()) - set(files))
    if unknown:
        raise SystemExit(f"no rows {', '.join(unknown)} in {rows}")
    if not files:
        raise SystemExit(f"{rows}: no .jsonl files")
    folder = scratch / rows.name
    folder.mkdir(parents=True)
    for name in only or files:
        shutil.copyfile(files[name], folder / files[name].name)
    for manifest in (rows / "corpora.json", rows.parent / "corpora.json"):
        if manifest.is_file():
            (scratch / "corpora.json").symlink_to(manifest.resolve())
            break
    return folder


def rows_digests(folder: Path) -> dict[str, str]:
    """Which rows were measured: each file's sha256."""
    return {f.name: _sha256(f) for f in sorted(folder.glob("*.jsonl"))}


def kept_from_rows(summary: Path, digests: dict[str, str]) -> None:
    """Baselines are kept only from an earlier run over the very same rows."""
    if not summary.is_file():
        raise SystemExit(f"--keep-baselines: no earlier run's {summary.name}")
    if json.loads(summary.read_text()).get("rows_sha256") != digests:
        raise SystemExit(f"--keep-baselines: {summary.name} was measured on other rows")


def _figure(row: dict, key: str, side: str) -> str:
    figure = row["per_repository"].get(key)
    return f"{figure[side]:.3f}" if figure else "—"


def _delta(row: dict, key: str) -> str:
    figure = row["per_repository"].get(key)
    if not figure:
        return "—"
    low, high = figure["ci95"]
    cell = f"{figure['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
    return f"**{cell}**" if figure["significant"] else cell


def phase2_markdown(vs_phase1: dict, vs_semble: dict) -> str:
    """Per group: phase 2 against phase 1 and against semble by the deciding file figure, the
    span figure's difference with phase 1 beside. Per-repository means."""
    lines = [
        "| questions | n | phase 1 | phase 2 | semble | phase 2 - phase 1 [95%] "
        "| phase 2 - semble [95%] | span: phase 1 / phase 2 | span: phase 2 - phase 1 [95%] |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group, row in vs_phase1.items():
        semble = vs_semble[group]
        span = f"{_figure(row, 'ndcg@10', 'base')} / {_figure(row, 'ndcg@10', 'new')}"
        lines.append(
            f"| {group} | {row['n_queries']} | {_figure(row, DECIDING_KEY, 'base')} "
            f"| {_figure(row, DECIDING_KEY, 'new')} | {_figure(semble, DECIDING_KEY, 'base')} "
            f"| {_delta(row, DECIDING_KEY)} | {_delta(semble, DECIDING_KEY)} | {span} "
            f"| {_delta(row, 'ndcg@10')} |"
        )
    return "\n".join(lines)


def summary_markdown(vs_semble: dict, vs_bm25: dict) -> str:
    """Per group (all, each language, each kind): phase 1, semble and BM25 by the deciding file
    figure, phase 1's paired differences; the span figure beside. Per-repository means."""
    lines = [
        "| questions | n | repos | phase 1 | semble | BM25 | phase 1 - semble [95%] "
        "| phase 1 - BM25 [95%] | span: phase 1 / semble / BM25 | span: phase 1 - semble [95%] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for group, row in vs_semble.items():
        bm25 = vs_bm25[group]
        span = " / ".join(
            (
                _figure(row, "ndcg@10", "new"),
                _figure(row, "ndcg@10", "base"),
                _figure(bm25, "ndcg@10", "base"),
            )
        )
        lines.append(
            f"| {group} | {row['n_queries']} | {row['per_repository']['n_repositories']} "
            f"| {_figure(row, DECIDING_KEY, 'new')} | {_figure(row, DECIDING_KEY, 'base')} "
            f"| {_figure(bm25, DECIDING_KEY, 'base')} | {_delta(row, DECIDING_KEY)} "
            f"| {_delta(bm25, DECIDING_KEY)} | {span} | {_delta(row, 'ndcg@10')} |"
        )
    return "\n".join(lines)


def _commit() -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    # Uncommitted changes to the code measured make the commit alone an incomplete record.
    changed = git("status", "--porcelain", "--untracked-files=no").splitlines()
    return {"commit": git("rev-parse", "HEAD").strip(), "changed_files": [c[3:] for c in changed]}


def run(args: argparse.Namespace) -> dict:
    env = os.environ | {"REPORIFT_PHASE2_MAX_UNITS": "0" if args.phase2 else "1"}
    if args.corpora:
        env["REPORIFT_CORPORA"] = str(Path(args.corpora).resolve())
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    systems = ("phase1", "bm25", "semble", *(("phase2",) if args.phase2 else ()))
    paths = {s: out / f"{args.name}-{s}-{args.part}.json" for s in systems}
    log: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-questions-") as scratch:
        folder = chosen_set(args.set, args.only, Path(scratch))
        rows, digests = str(folder), rows_digests(folder)
        # The baselines do not move with our ranker: a run that refits it may keep theirs.
        if args.keep_baselines:
            kept_from_rows(out / f"{args.name}-summary-{args.part}.json", digests)
            missing = [paths[s].name for s in ("bm25", "semble") if not paths[s].is_file()]
            if missing:
                raise SystemExit(f"--keep-baselines: no {', '.join(missing)} in {out}")
        _run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, log)
        answered = [sys.executable, "manage.py", "evaluate", rows, "--format", "questions"]
        answered += ["--part", args.part]
        evaluate = [*answered, "--phase", "1"]
        _run([*evaluate, "--out", str(paths["phase1"])], env, log)
        if args.phase2:  # the index is complete by now: phase 2 answers from the same one
            _run([*answered, "--out", str(paths["phase2"])], env, log)
        if not args.keep_baselines:
            _run([*evaluate, "--stages", "S4", "--out", str(paths["bm25"])], env, log)
        model = semble_model(args.semble_python, args.semble_model, env, log)
        semble = [args.semble_python, "-m", "benchmarks.semble_questions", "--model"]
        semble += [str(args.semble_model), "--questions", rows, "--part", args.part]
        semble += ["--out", str(paths["semble"])]
        languages = (Path(rows) / "corpora.json").is_file() or (
            Path(rows).parent / "corpora.json"
        ).is_file()
        # semble picks files by extension: given the extensionless scripts RepoRift reads as
        # Bash too, where a set has other languages (a Python package's corpus is its .py).
        semble += ["--sniff-shell"] if languages else []
        if not args.keep_baselines:
            _run(semble, env | {"PYTHONPATH": str(ROOT)}, log)
        else:
            log.append(f"kept {paths['bm25'].name} and {paths['semble'].name} of an earlier run")
    reports = {s: json.loads(p.read_text()) for s, p in paths.items()}
    vs_semble = compare(reports["semble"], reports["phase1"])
    vs_bm25 = compare(reports["bm25"], reports["phase1"])
    for other, comparison in (("semble", vs_semble), ("bm25", vs_bm25)):
        path = out / f"{args.name}-compare-{other}-{args.part}.json"
        path.write_text(json.dumps(comparison, indent=1) + "\n")
    table = summary_markdown(vs_semble, vs_bm25)
    phase2 = {}
    if args.phase2:
        phase2 = {
            "phase1": compare(reports["phase1"], reports["phase2"]),
            "semble": compare(reports["semble"], reports["phase2"]),
        }
        for other, comparison in phase2.items():
            path = out / f"{args.name}-compare-phase2-{other}-{args.part}.json"
            path.write_text(json.dumps(comparison, indent=1) + "\n")
        table += "\n\n" + phase2_markdown(phase2["phase1"], phase2["semble"])
    summary = {
        "set": str(args.set),
        "only": args.only or [],
        "rows_sha256": digests,
        "part": args.part,
        "deciding": f"{DECIDING_KEY}, mean of per-repository means",
        "machine": machine_line(),
        **_commit(),
        "semble_table": model,
        "commands": log,
        "reports": {s: p.name for s, p in paths.items()},
        "vs_semble": {g: row["per_repository"] for g, row in vs_semble.items()},
        "vs_bm25": {g: row["per_repository"] for g, row in vs_bm25.items()},
        **{
            f"phase2_vs_{other}": {g: row["per_repository"] for g, row in comparison.items()}
            for other, comparison in phase2.items()
        },
        "table": table,
    }
    stem = out / f"{args.name}-summary-{args.part}"
    stem.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    stem.with_suffix(".md").write_text(table + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, required=True, help="a folder of question rows")
    parser.add_argument("--name", required=True, help="the reports' name stem")
    parser.add_argument("--part", choices=("tune", "final", "all"), default="tune")
    parser.add_argument("--only", nargs="+", help="these rows files only (their stems)")
    parser.add_argument("--semble-python", required=True, help="the python of semble's venv")
    parser.add_argument("--semble-model", type=Path, required=True, help="its model2vec folder")
    parser.add_argument("--corpora", help="the other-language corpora (REPORIFT_CORPORA)")
    parser.add_argument(
        "--phase2", action="store_true", help="index through phase 2 and measure it as well"
    )
    parser.add_argument(
        "--keep-baselines",
        action="store_true",
        help="keep the BM25 and semble reports already in --out-dir (same rows: checked)",
    )
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "eval")
    args = parser.parse_args(argv)
    if not args.set.is_dir():
        parser.error(f"--set {args.set}: not a folder of rows")
    if not Path(args.semble_python).is_file():
        parser.error(f"--semble-python {args.semble_python}: no such file")
    print(run(args)["table"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
