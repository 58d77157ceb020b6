"""The issue-to-files dev set: public GitHub issues paired with the files their fixes changed
(benchmarks/questions/issues/<source>.jsonl; the format and the sources are in that folder's
README). The issue text is the query, the repository at `base_commit` the corpus, `gold_files`
the answer.

    python -m benchmarks.issue_sets build --lite LITE_DEV.jsonl --lite-source TEXT \
        --mswe-git GIT_DIR --mswe-repo OWNER/NAME --mswe-commit SHA \
        --heldout HELDOUT_DIR --mirrors /work/.mirror   # the README has the exact command
    python -m benchmarks.issue_sets check --heldout HELDOUT_DIR --mirrors /work/.mirror
    python -m benchmarks.issue_sets stats

`build` reads SWE-bench Lite's dev split (a JSONL file of instance_id, repo, base_commit,
problem_statement, patch_files, created_at) and Multi-SWE-bench's per-repository files as carried
in a git repository (`MSWE-agent/data/<language>/<org>__<repo>_dataset.jsonl` at a pinned
commit), keeps the non-test files each fix changed that exist at the base commit, and leaves out
held-out instances and projects and SWE-bench's test repositories. `check` verifies every row
against the repositories' bare mirrors (`<mirrors>/<owner>+<name>/repo`, as `fetch` leaves them):
base commit present, every gold file present at it, fields well formed, ids unique, no held-out
id anywhere in the folder and no held-out project. HELDOUT_DIR holds swe-bench-instances.txt and
projects.txt (one name a line, `#` comments).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

from benchmarks.heldout import normalise, read_list

OUT = Path(__file__).resolve().parent / "questions" / "issues"
FIELDS = {
    "id",
    "source",
    "repo",
    "base_commit",
    "language",
    "issue",
    "gold_files",
    "fix_commit",
    "created_at",
}
REQUIRED = FIELDS - {"fix_commit", "created_at"}
LANGUAGES = {"python", "javascript", "typescript", "go", "java", "rust", "c", "cpp"}
SHA = re.compile(r"[0-9a-f]{40}")
# SWE-bench's test split comes from these repositories: none of their instances is used at all.
SWE_BENCH_TEST_REPOS = {
    "astropy/astropy",
    "django/django",
    "matplotlib/matplotlib",
    "mwaskom/seaborn",
    "pallets/flask",
    "psf/requests",
    "pydata/xarray",
    "pylint-dev/pylint",
    "pytest-dev/pytest",
    "scikit-learn/scikit-learn",
    "sphinx-doc/sphinx",
    "sympy/sympy",
}
MSWE_LANGUAGES = {
    "c": "c",
    "cpp": "cpp",
    "go": "go",
    "java": "java",
    "js": "javascript",
    "ts": "typescript",
    "rust": "rust",
    "python": "python",
}
# Multi-SWE-bench files Kong/insomnia under js/, but the project and its fixes are TypeScript.
LANGUAGE_OVERRIDES = {"Kong/insomnia": "typescript"}
MSWE_FILE = re.compile(r"MSWE-agent/data/(\w+)/([\w.-]+?)__([\w.-]+)_dataset\.jsonl")
CODE_EXTENSIONS = {
    "py",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "go",
    "java",
    "rs",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "jq",
}
TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|testing|testdata|spec)(/|$)"
    r"|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$|Tests?\.java$"
)


def git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True)


def mirror(mirrors: Path, repo: str) -> Path:
    return mirrors / repo.replace("/", "+") / "repo"


def has_object(git_dir: Path, spec: str) -> bool:
    return git(git_dir, "cat-file", "-e", spec).returncode == 0


def patch_files(patch: str) -> list[tuple[str, bool]]:
    """(path before the change, whether the patch creates it) for each file a diff touches."""
    found = []
    for block in re.split(r"^(?=diff --git )", patch, flags=re.M):
        head = re.match(r"diff --git a/(\S+) b/(\S+)", block)
        if head:
            created = bool(re.search(r"^(new file mode|--- /dev/null)", block, re.M))
            found.append((head.group(1), created))
    return found


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))


def is_code_path(path: str) -> bool:
    """A source file of one of the sets' languages (not documentation or configuration)."""
    return path.rsplit("/", 1)[-1].rpartition(".")[2] in CODE_EXTENSIONS


def heldout_project(repo: str, projects: set[str]) -> bool:
    """Whether `repo` (owner/name) is a held-out project: its name, its owner, the two joined,
    or one dash-separated part of either (`tokio-rs`) matches a name, ignoring case and -_."""
    owner, _, name = repo.partition("/")
    keys = {normalise(name), normalise(owner), normalise(owner + name)}
    keys |= {normalise(part) for part in re.split(r"[-_.]", f"{owner}-{name}") if part}
    return bool(keys & {normalise(p) for p in projects})


Heldout = tuple[set[str], set[str]]  # instance ids, project names


def heldout_lists(folder: Path) -> Heldout:
    return read_list(folder / "swe-bench-instances.txt"), read_list(folder / "projects.txt")


def id_pattern(ids: set[str]) -> re.Pattern:
    """Any of `ids` as a whole word (as `grep -w` reads one)."""
    names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{names})(?!\w)")


def find_fix_commit(git_dir: Path, number: int, base: str, gold: list[str]) -> str | None:
    """The commit that merged pull request `number`: a squash commit whose subject ends in
    `(#N)` or a `Merge pull request #N` commit, after `base`, changing every gold file."""
    log = git(git_dir, "log", "--all", "--fixed-strings", f"--grep=#{number}", "--format=%H %s")
    subject = re.compile(rf"\(#{number}\)\s*$|^Merge pull request #{number}\b")
    for line in log.stdout.splitlines():
        commit, _, text = line.partition(" ")
        if not subject.search(text):
            continue
        if git(git_dir, "merge-base", "--is-ancestor", base, commit).returncode != 0:
            continue
        changed = git(git_dir, "diff", "--name-only", f"{commit}^1", commit).stdout.split()
        if set(gold) <= set(changed):
            return commit
    return None


def _row(**fields) -> dict:
    row = {
        key: fields[key]
        for key in ("id", "source", "repo", "base_commit", "language", "issue", "gold_files")
    }
    for key in ("fix_commit", "created_at"):
        if fields.get(key):
            row[key] = fields[key]
    return row


def _gold(git_dir: Path, base: str, files: list[tuple[str, bool]]) -> list[str]:
    kept = [p for p, created in files if not created and not is_test_path(p)]
    return [p for p in dict.fromkeys(kept) if has_object(git_dir, f"{base}:{p}")]


def lite_rows(path: Path, mirrors: Path, note: str, heldout: Heldout) -> list[dict]:
    rows = []
    for line in path.read_text().splitlines():
        item = json.loads(line) if line.strip() else None
        if not item or _skipped(item["instance_id"], item["repo"], heldout):
            continue
        git_dir, base = mirror(mirrors, item["repo"]), item["base_commit"]
        if not has_object(git_dir, f"{base}^{{commit}}"):
            print(f"skipped {item['instance_id']}: no mirror with its base commit")
            continue
        gold = _gold(git_dir, base, [(p, False) for p in item["patch_files"]])
        number = int(item["instance_id"].rsplit("-", 1)[1])
        rows.append(
            _row(
                id=item["instance_id"],
                source=note,
                repo=item["repo"],
                base_commit=base,
                language="python",
                issue=item["problem_statement"].replace("\r\n", "\n"),
                gold_files=gold,
                fix_commit=find_fix_commit(git_dir, number, base, gold),
                created_at=item.get("created_at"),
            )
        )
    return rows


def mswe_issue(item: dict) -> str:
    """The resolved issues' titles and bodies, in the collection's order, each issue once."""
    parts, seen = [], set()
    for issue in item["resolved_issues"]:
        if issue.get("number") in seen:
            continue
        seen.add(issue.get("number"))
        body = (issue.get("body") or "").strip()
        parts.append(issue["title"].strip() + (f"\n\n{body}" if body else ""))
    return "\n\n".join(parts).replace("\r\n", "\n")


def mswe_rows(
    source_git: Path, commit: str, mirrors: Path, note: str, heldout: Heldout
) -> list[dict]:
    rows = []
    names = git(source_git, "ls-tree", "-r", "--name-only", commit, "MSWE-agent/data").stdout
    repos = {p.name.lower(): p.name.replace("+", "/") for p in mirrors.iterdir()}
    for name in sorted(names.split()):
        match = MSWE_FILE.fullmatch(name)
        if not match:
            continue
        text = git(source_git, "show", f"{commit}:{name}")
        if text.returncode or text.stdout.startswith("version https://git-lfs"):
            print(f"skipped {name}: no content in the snapshot (missing or a Git LFS pointer)")
            continue
        for line in text.stdout.splitlines():
            item = json.loads(line)
            if _skipped(item["instance_id"], f"{item['org']}/{item['repo']}", heldout):
                continue
            repo = repos.get(f"{item['org']}+{item['repo']}".lower())
            if repo is None:
                print(f"skipped {item['instance_id']}: no mirror of {item['org']}/{item['repo']}")
                continue
            git_dir, base = mirror(mirrors, repo), item["base"]["sha"]
            if not has_object(git_dir, f"{base}^{{commit}}"):
                print(f"skipped {item['instance_id']}: base commit not in the mirror")
                continue
            gold = _gold(git_dir, base, patch_files(item["fix_patch"]))
            rows.append(
                _row(
                    id=item["instance_id"],
                    source=f"{note}: {name}",
                    repo=repo,
                    base_commit=base,
                    language=LANGUAGE_OVERRIDES.get(repo, MSWE_LANGUAGES[match.group(1)]),
                    issue=mswe_issue(item),
                    gold_files=gold,
                    fix_commit=find_fix_commit(git_dir, item["number"], base, gold),
                )
            )
    return rows


def excluded(instance: str, repo: str, heldout: Heldout) -> str | None:
    """Why an instance is left out of every set (None: it is not)."""
    if instance in heldout[0]:
        return "held-out instance"
    if heldout_project(repo, heldout[1]):
        return "held-out project"
    if repo.lower() in SWE_BENCH_TEST_REPOS:
        return "a SWE-bench test repository"
    return None


def _skipped(instance: str, repo: str, heldout: Heldout) -> bool:
    why = excluded(instance, repo, heldout)
    if why:
        print(f"left out {instance}: {why}")
    return bool(why)


def keep(rows: list[dict], heldout: Heldout) -> list[dict]:
    kept, seen = [], set()
    for row in rows:
        why = excluded(row["id"], row["repo"], heldout)
        if not why and not any(is_code_path(p) for p in row["gold_files"]):
            why = "no source file among the fix's files present at the base commit"
        if not why and row["id"] in seen:
            why = "duplicate id"
        if why:
            print(f"left out {row['id']}: {why}")
            continue
        seen.add(row["id"])
        kept.append(row)
    return sorted(kept, key=lambda r: (r["repo"].lower(), r["id"]))


def write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def read_rows(paths: list[Path]) -> list[tuple[Path, dict]]:
    return [(p, json.loads(line)) for p in paths for line in p.read_text().splitlines() if line]


def row_problems(row: dict) -> list[str]:
    """What is malformed in one row (nothing: an empty list)."""
    problems = [f"field {key} missing" for key in sorted(REQUIRED - row.keys())]
    problems += [f"unknown field {key}" for key in sorted(row.keys() - FIELDS)]
    if problems:
        return problems
    if not all(isinstance(row[k], str) and row[k].strip() for k in REQUIRED - {"gold_files"}):
        problems.append("a text field is empty or not a string")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", str(row["repo"])):
        problems.append(f"repo {row['repo']!r} is not owner/name")
    for key in ("base_commit", "fix_commit"):
        if key in row and not SHA.fullmatch(str(row[key])):
            problems.append(f"{key} is not a 40-hex commit")
    if row["language"] not in LANGUAGES:
        problems.append(f"language {row['language']!r} unknown")
    gold = row["gold_files"]
    if not (isinstance(gold, list) and gold and all(isinstance(p, str) and p for p in gold)):
        problems.append("gold_files is not a non-empty list of paths")
    elif len(set(gold)) != len(gold) or any(is_test_path(p) for p in gold):
        problems.append("gold_files repeats a path or names a test file")
    elif not any(is_code_path(p) for p in gold):
        problems.append("gold_files names no source file")
    return problems


def check(folder: Path, mirrors: Path, heldout: Path) -> int:
    lists = heldout_lists(heldout)
    paths = sorted(folder.glob("*.jsonl"))
    rows = read_rows(paths)
    listed = read_list(folder / "mirrors.txt") if (folder / "mirrors.txt").exists() else set()
    failures, ids = [], Counter(row.get("id") for _, row in rows)
    for path, row in rows:
        where = f"{path.name} {row.get('id')}"
        problems = row_problems(row)
        if ids[row.get("id")] > 1:
            problems.append("id not unique")
        if not problems:
            repo, base = row["repo"], row["base_commit"]
            git_dir = mirror(mirrors, repo)
            why = excluded(row["id"], repo, lists)
            if why:
                problems.append(why)
            if repo not in listed:
                problems.append("repository not in mirrors.txt")
            if not has_object(git_dir, f"{base}^{{commit}}"):
                problems.append(f"base commit not in {git_dir}")
            else:
                absent = [p for p in row["gold_files"] if not has_object(git_dir, f"{base}:{p}")]
                problems += [f"gold file absent at the base commit: {p}" for p in absent]
            if "fix_commit" in row and not has_object(git_dir, f"{row['fix_commit']}^{{commit}}"):
                problems.append("fix_commit not in the mirror")
        failures += [f"{where}: {problem}" for problem in problems]
    named = {row.get("repo") for _, row in rows}
    failures += [f"mirrors.txt: {repo} names no row" for repo in sorted(listed - named)]
    pattern = id_pattern(lists[0]) if lists[0] else None
    for path in sorted(folder.rglob("*")):
        if pattern and path.is_file() and pattern.search(path.read_text(errors="replace")):
            failures.append(f"{path.name}: contains a held-out instance id")
    for failure in failures:
        print(failure)
    repos = len(named)
    print(
        f"{len(rows)} rows in {len(paths)} files, {repos} repositories: "
        f"{'ok' if not failures else f'{len(failures)} problems'}"
    )
    return 1 if failures else 0


def stats(folder: Path) -> None:
    tagged = [(path.stem, row) for path, row in read_rows(sorted(folder.glob("*.jsonl")))]
    rows = [row for _, row in tagged]
    for title, counts in (
        ("source", Counter(source for source, _ in tagged)),
        ("language", Counter(row["language"] for row in rows)),
        ("repository", Counter(row["repo"] for row in rows)),
    ):
        print(f"rows per {title}: " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))
    lengths = sorted(len(row["issue"]) for row in rows)
    quartiles = [round(q) for q in statistics.quantiles(lengths, n=4)]
    print(
        f"rows {len(rows)}; issue length in characters: min {lengths[0]}, quartiles "
        f"{quartiles}, max {lengths[-1]}; over 1,000: {sum(n > 1000 for n in lengths)}"
    )
    gold = [len(row["gold_files"]) for row in rows]
    print(
        f"gold files a row: median {statistics.median(gold)}, max {max(gold)}, one only "
        f"{gold.count(1)}; rows with a fix_commit {sum('fix_commit' in row for row in rows)}"
    )


def build(args: argparse.Namespace) -> int:
    mirrors, out = Path(args.mirrors), Path(args.out)
    heldout = heldout_lists(Path(args.heldout))
    lite = lite_rows(Path(args.lite), mirrors, args.lite_source, heldout)
    mswe_note = f"Multi-SWE-bench, read from {args.mswe_repo} at {args.mswe_commit}"
    mswe = mswe_rows(Path(args.mswe_git), args.mswe_commit, mirrors, mswe_note, heldout)
    out.mkdir(parents=True, exist_ok=True)
    kept = {}
    for name, rows in (("swe-bench-lite-dev", lite), ("multi-swe-bench", mswe)):
        kept[name] = keep(rows, heldout)
        write(out / f"{name}.jsonl", kept[name])
    repos = sorted({row["repo"] for rows in kept.values() for row in rows}, key=str.lower)
    (out / "mirrors.txt").write_text("".join(f"{repo}\n" for repo in repos))
    print(", ".join(f"{name}: {len(rows)} rows" for name, rows in kept.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="benchmarks.issue_sets", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "check", "stats"):
        command = commands.add_parser(name)
        command.add_argument("--out", default=str(OUT), help="the rows' folder")
        if name == "stats":
            continue
        command.add_argument(
            "--mirrors",
            default=os.environ.get("REPORIFT_GIT_MIRRORS"),
            required="REPORIFT_GIT_MIRRORS" not in os.environ,
            help="bare mirrors, <owner>+<name>/repo",
        )
        command.add_argument(
            "--heldout", required=True, help="folder of swe-bench-instances.txt and projects.txt"
        )
    build_command = commands.choices["build"]
    build_command.add_argument("--lite", required=True, help="SWE-bench Lite dev, JSONL")
    build_command.add_argument("--lite-source", required=True, help="where --lite was read")
    build_command.add_argument("--mswe-git", required=True, help="git dir carrying Multi-SWE-bench")
    build_command.add_argument("--mswe-repo", required=True, help="that repository, owner/name")
    build_command.add_argument("--mswe-commit", required=True, help="the commit read")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args)
    if args.command == "check":
        return check(Path(args.out), Path(args.mirrors), Path(args.heldout))
    stats(Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
