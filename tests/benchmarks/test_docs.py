"""docs/BENCHMARKS.md stays true to what is committed: every report its first part cites is in the
repository, every `python -m benchmarks.X` it names exists, and the sections `make bench` writes
are what the committed reports give."""

import re
import subprocess

import pytest

from benchmarks import run
from benchmarks.common import DOC, ROOT

TEXT = DOC.read_text()
PART_ONE = TEXT.split("# Part two")[0]


def committed(path: str) -> bool:
    listed = subprocess.run(
        ["git", "ls-files", "--error-unmatch", path], cwd=ROOT, capture_output=True
    )
    return listed.returncode == 0


def cited_reports(text: str) -> set[str]:
    # A placeholder names the report its figures will come from; a `<model>` or `{a,b}` in a
    # path names a family of reports, which the pattern does not match.
    said = "\n".join(line for line in text.splitlines() if "Not measured yet" not in line)
    return set(re.findall(r"docs/eval/[\w.\-]+\.(?:json|png|md)", said))


def test_the_first_part_cites_only_committed_reports():
    reports = cited_reports(PART_ONE) | {
        f"docs/{image}" for image in re.findall(r"\]\((eval/[\w.\-]+)\)", PART_ONE)
    }
    assert reports, "the first part cites no report"
    missing = sorted(r for r in reports if not committed(r))
    assert not missing, f"cited but not committed: {missing}"


def test_every_report_the_history_cites_is_there():
    missing = sorted(r for r in cited_reports(TEXT) if not (ROOT / r).exists())
    assert not missing, f"cited but missing: {missing}"


def test_every_benchmark_command_exists():
    modules = set(re.findall(r"python -m (benchmarks(?:\.\w+)+)", TEXT))
    assert "benchmarks.run" in modules
    missing = sorted(
        m
        for m in modules
        if not (ROOT / (m.replace(".", "/") + ".py")).exists()
        and not (ROOT / m.replace(".", "/") / "__main__.py").exists()
    )
    assert not missing, f"named but not in the tree: {missing}"


def test_the_first_part_is_short():
    assert len(PART_ONE.splitlines()) <= 250


@pytest.mark.parametrize("name", sorted(run.SECTIONS))
def test_each_section_is_what_its_reports_give(name):
    match = re.search(rf"<!-- section: {re.escape(name)} -->\n(.*?)\n<!-- end -->", TEXT, re.S)
    assert match, f"no section {name!r} in docs/BENCHMARKS.md"
    assert match.group(1) == run.SECTIONS[name]().strip()


def test_write_section_replaces_only_an_existing_section(tmp_path, monkeypatch):
    from benchmarks import common

    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text("# B\n<!-- section: a -->\nold\n<!-- end -->\ntail\n")
    monkeypatch.setattr(common, "DOC", doc)
    assert common.write_section("a", "new\n")
    assert not common.write_section("b", "never added")
    assert doc.read_text() == "# B\n<!-- section: a -->\nnew\n<!-- end -->\ntail\n"


def test_removed_benchmarks_are_named_by_a_commit_that_holds_them():
    cited = re.findall(r"`(benchmarks/[\w/]+\.py)` at commit ([0-9a-f]{7,40})", TEXT)
    assert cited
    for path, commit in cited:
        shown = subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT)
        assert shown.returncode == 0, f"{path} is not at {commit}"
