"""The issue evaluation over a real bare git mirror: each project indexed at each base commit,
moved from commit to commit in the order they were made, and every system scored per issue."""

import os
import subprocess

import pytest

from indexing.models import Repository
from search.evaluation.issue_rows import IssueRow, commit_time
from search.evaluation.issues import evaluate_issues

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

RETRY = '''def retry_request(url, attempts=3):
    """Retry a failed HTTP request with exponential backoff."""
    for attempt in range(attempts):
        try:
            return fetch(url)
        except ConnectionError:
            sleep(2 ** attempt)
    raise TimeoutError("gave up on " + url)
'''
PARSE = '''def parse_config(text):
    """Read the key = value lines of a configuration file."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
'''


def _git(*args, cwd, date=None):
    # Both dates set: the evaluation orders commits by the committer's, which git would
    # otherwise take from the clock (two commits in one second would tie).
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env
    )


def _mirror(tmp_path):
    """A project with two commits (the second adds a file), and its bare mirror as fetched."""
    work = tmp_path / "work"
    work.mkdir()
    _git("init", "-q", cwd=work)
    env = ("-c", "user.name=t", "-c", "user.email=t@example.org")
    (work / "net.py").write_text(RETRY)
    _git("add", ".", cwd=work)
    _git(*env, "commit", "-q", "-m", "one", cwd=work, date="2020-01-01T00:00:00")
    first = _git("rev-parse", "HEAD", cwd=work).stdout.strip()
    (work / "config.py").write_text(PARSE)
    _git("add", ".", cwd=work)
    _git(*env, "commit", "-q", "-m", "two", cwd=work, date="2020-01-02T00:00:00")
    second = _git("rev-parse", "HEAD", cwd=work).stdout.strip()
    mirrors = tmp_path / "mirrors"
    _git("clone", "-q", "--bare", str(work), str(mirrors / "acme+shop" / "repo"), cwd=tmp_path)
    return mirrors, first, second


def test_each_issue_is_scored_at_its_base_commit_in_one_repository_per_project(tmp_path):
    mirrors, first, second = _mirror(tmp_path)
    assert commit_time("acme/shop", first, mirrors) < commit_time("acme/shop", second, mirrors)
    rows = [
        # Listed newest first: the evaluation still walks the commits in the order made.
        IssueRow(
            "acme__shop-2",
            "acme/shop",
            second,
            "python",
            "parse_config drops a value that holds '=' after the first one",
            ("config.py",),
        ),
        IssueRow(
            "acme__shop-1",
            "acme/shop",
            first,
            "python",
            'Traceback (most recent call last):\n  File "net.py", line 7, in retry_request\n'
            "TimeoutError: gave up on http://example.org",
            ("net.py",),
        ),
    ]
    progress = []
    report = evaluate_issues(
        rows, mirrors=mirrors, systems=["locate", "bm25-files"], progress=progress.append
    )
    assert [line.split(":")[0] for line in progress] == [
        f"[1/2] acme/shop@{first[:12]}",
        f"[2/2] acme/shop@{second[:12]}",
    ]
    by_id = {entry["id"]: entry for entry in report["per_query"]}
    assert by_id["acme__shop-1"]["systems"]["locate"]["files"][0] == "net.py"
    # The file that exists only at the second commit is found there.
    assert by_id["acme__shop-2"]["systems"]["locate"]["files"][0] == "config.py"
    assert by_id["acme__shop-2"]["systems"]["locate"]["metrics"]["acc@1"] == 1.0
    # One repository for the project, indexed twice: the second run reused net.py.
    repository = Repository.objects.get(name="issues-acme-shop")
    runs = list(repository.runs.order_by("created_at"))
    assert len(runs) == 2 and runs[1].files_reused == 1
