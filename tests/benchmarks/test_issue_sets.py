"""The issue-set builder and checker on tiny git repositories made here (no network): a project
with a base commit and a fix, a collection carrying one Multi-SWE-bench row, a held-out list."""

import json
import subprocess

import pytest

from benchmarks import issue_sets

FIX_PATCH = """diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-x = 1
+x = 2
diff --git a/src/new.py b/src/new.py
new file mode 100644
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1 @@
+y = 1
diff --git a/tests/test_app.py b/tests/test_app.py
--- a/tests/test_app.py
+++ b/tests/test_app.py
@@ -1 +1 @@
-assert 1
+assert 2
"""


def run(cwd, *args: str) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(work, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    run(work, "git", "add", "-A")
    run(work, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    return run(work, "git", "rev-parse", "HEAD")


@pytest.fixture
def world(tmp_path):
    """A project acme/toy (base commit, then the fix of PR 7), its bare mirror, held-out lists
    and a collection repository carrying the row of the fix."""
    work = tmp_path / "toy"
    work.mkdir()
    run(work, "git", "init", "-q")
    base = commit(work, {"src/app.py": "x = 1\n", "tests/test_app.py": "assert 1\n"}, "start")
    commit(work, {"src/app.py": "x = 2\n", "src/new.py": "y = 1\n"}, "Fix x (#7)")
    mirrors = tmp_path / "mirrors"
    run(tmp_path, "git", "clone", "-q", "--bare", str(work), str(mirrors / "acme+toy" / "repo"))
    heldout = tmp_path / "heldout"
    heldout.mkdir()
    (heldout / "swe-bench-instances.txt").write_text("# held out\nacme__gone-1\n")
    (heldout / "projects.txt").write_text("tokio\nnlohmann-json\n")
    item = {
        "org": "acme",
        "repo": "toy",
        "number": 7,
        "instance_id": "acme__toy-7",
        "base": {"sha": base},
        "fix_patch": FIX_PATCH,
        "resolved_issues": [{"number": 3, "title": "x is wrong", "body": "It is 1.\r\n"}] * 2,
    }
    gone = {**item, "instance_id": "acme__gone-1"}
    source = tmp_path / "collection"
    source.mkdir()
    run(source, "git", "init", "-q")
    data = "".join(json.dumps(row) + "\n" for row in (item, gone))
    collection = commit(source, {"MSWE-agent/data/rust/acme__toy_dataset.jsonl": data}, "data")
    lite = tmp_path / "lite.jsonl"
    lite.write_text("")
    return {
        "tmp": tmp_path,
        "base": base,
        "mirrors": mirrors,
        "heldout": heldout,
        "source": source,
        "collection": collection,
        "lite": lite,
    }


def build(world, out) -> int:
    return issue_sets.main(
        [
            "build",
            "--out",
            str(out),
            "--mirrors",
            str(world["mirrors"]),
            "--heldout",
            str(world["heldout"]),
            "--lite",
            str(world["lite"]),
            "--lite-source",
            "lite",
            "--mswe-git",
            str(world["source"] / ".git"),
            "--mswe-repo",
            "someone/collection",
            "--mswe-commit",
            world["collection"],
        ]
    )


def check(world, out) -> int:
    return issue_sets.main(
        [
            "check",
            "--out",
            str(out),
            "--mirrors",
            str(world["mirrors"]),
            "--heldout",
            str(world["heldout"]),
        ]
    )


def test_patch_files_mark_created_files_and_tests_are_recognised():
    assert issue_sets.patch_files(FIX_PATCH) == [
        ("src/app.py", False),
        ("src/new.py", True),
        ("tests/test_app.py", False),
    ]
    assert issue_sets.is_test_path("tests/test_app.py")
    assert issue_sets.is_test_path("pkg/thing_test.go")
    assert issue_sets.is_test_path("src/main/java/FooTest.java")
    assert not issue_sets.is_test_path("src/catch2/catch_test_macros.hpp")


def test_heldout_projects_match_owner_name_and_their_parts():
    projects = {"tokio", "nlohmann-json", "serde"}
    assert issue_sets.heldout_project("tokio-rs/bytes", projects)
    assert issue_sets.heldout_project("nlohmann/json", projects)
    assert issue_sets.heldout_project("serde-rs/serde", projects)
    assert not issue_sets.heldout_project("sharkdp/fd", projects)


def test_build_keeps_existing_non_test_files_and_leaves_held_out_rows(world, capsys):
    out = world["tmp"] / "issues"
    assert build(world, out) == 0
    rows = [json.loads(line) for line in (out / "multi-swe-bench.jsonl").read_text().splitlines()]
    assert [row["id"] for row in rows] == ["acme__toy-7"]
    row = rows[0]
    assert row["gold_files"] == ["src/app.py"]
    assert row["issue"] == "x is wrong\n\nIt is 1."
    assert row["language"] == "rust" and row["base_commit"] == world["base"]
    assert row["fix_commit"] == run(
        world["mirrors"] / "acme+toy" / "repo", "git", "rev-parse", "HEAD"
    )
    assert "someone/collection" in row["source"]
    assert (out / "mirrors.txt").read_text() == "acme/toy\n"
    assert "left out acme__gone-1: held-out instance" in capsys.readouterr().out
    assert check(world, out) == 0


def test_check_reports_absent_files_duplicates_and_held_out_ids(world, capsys):
    out = world["tmp"] / "issues"
    build(world, out)
    path = out / "multi-swe-bench.jsonl"
    row = json.loads(path.read_text())
    capsys.readouterr()
    broken = {**row, "id": "acme__toy-8", "gold_files": ["src/missing.py"], "language": "cobol"}
    path.write_text(json.dumps(row) + "\n" + json.dumps(broken) + "\n")
    assert check(world, out) == 1
    assert "unknown" in capsys.readouterr().out
    broken["language"] = "python"
    path.write_text(json.dumps(row) + "\n" + json.dumps(broken) + "\n" + json.dumps(row) + "\n")
    assert check(world, out) == 1
    report = capsys.readouterr().out
    assert "gold file absent at the base commit: src/missing.py" in report
    assert "id not unique" in report
    path.write_text(json.dumps({**row, "issue": "see acme__gone-1 for more"}) + "\n")
    assert check(world, out) == 1
    assert "contains a held-out instance id" in capsys.readouterr().out
    (out / "notes.md").write_text("acme__gone-10 is another id\n")
    path.write_text(json.dumps(row) + "\n")
    assert check(world, out) == 0
