"""The issue dev set's rows and their scoring, without Django (the peer benchmarks read them
too): a row is an issue, its repository at the base commit, and the files its fix changed.

Rows (JSONL, one issue a line; benchmarks/questions/issues/README.md has the format): `id`,
`repo` (`owner/name`), `base_commit`, `language`, `issue`, `gold_files`. A repository at a
commit is written out of a bare git mirror (`<mirrors>/<owner>+<name>/repo`, as
`benchmarks.corpora` reads them).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from search.evaluation.dataset_types import DatasetError
from search.evaluation.questions import part_of

ACC_KS = (1, 3, 5, 10)


@dataclass(frozen=True)
class IssueRow:
    id: str
    repo: str
    base_commit: str
    language: str
    issue: str
    gold_files: tuple[str, ...]


def load_issue_rows(path: Path, part: str = "tune") -> list[IssueRow]:
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    rows = []
    for file in files:
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            raw = json.loads(line)
            try:
                row = IssueRow(
                    raw["id"],
                    raw["repo"],
                    raw["base_commit"],
                    raw.get("language", ""),
                    raw["issue"],
                    tuple(raw["gold_files"]),
                )
            except KeyError as exc:
                raise DatasetError(f"{file}:{number}: missing {exc}") from exc
            if part in ("all", part_of(row.id)):
                rows.append(row)
    if not rows:
        raise DatasetError(f"{path}: no issue rows in part {part!r}")
    return rows


def file_metrics(ranked: list[str], gold: Iterable[str]) -> dict[str, float]:
    gold = set(gold)
    ranks = [n for n, path in enumerate(ranked, start=1) if path in gold]
    first = ranks[0] if ranks else 0
    out = {f"acc@{k}": float(bool(first) and first <= k) for k in ACC_KS}
    out |= {f"all@{k}": float(len([r for r in ranks if r <= k]) == len(gold)) for k in (5, 10)}
    out["mrr"] = 1.0 / first if first else 0.0
    out["recall@10"] = len([r for r in ranks if r <= 10]) / len(gold)
    return out


def commit_time(repo: str, commit: str, mirrors: Path) -> int:
    """When `commit` was made (seconds since the epoch; 0 when the mirror cannot say)."""
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    shown = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", "-s", "--format=%ct", commit],
        capture_output=True,
        text=True,
    )
    return int(shown.stdout.strip() or 0) if shown.returncode == 0 else 0


def write_tree(repo: str, commit: str, mirrors: Path, into: Path) -> int:
    """The repository's files at `commit`, written into `into` (emptied first); how many blobs
    the mirror lacks (a snapshot leaves out files of 4 MiB and more, which no index reads
    anyway). Links and submodules are left out."""
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise DatasetError(f"no mirror of {repo} at {git_dir} (fetch it first)")
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    git = ["git", f"--git-dir={git_dir}"]
    listed = subprocess.run([*git, "ls-tree", "-r", "-z", commit], capture_output=True)
    if listed.returncode != 0:
        raise DatasetError(f"{repo}@{commit[:12]}: {listed.stderr.decode()[-500:]}")
    blobs = []
    for entry in listed.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            blobs.append((sha.decode(), path.decode("utf-8", errors="surrogateescape")))
    batch = subprocess.Popen(
        [*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    missing = 0
    root = into.resolve()
    for sha, path in blobs:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after each object
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    batch.stdin.close()
    batch.wait()
    return missing
