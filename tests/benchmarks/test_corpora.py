"""The corpora tool: a package is downloaded by its ecosystem's client, unpacked under
`<ecosystem>/<package>-<version>/`, and checked against the manifest's fingerprint (the
client is replaced here by one that writes a package archive: nothing is downloaded)."""

import io
import json
import subprocess
import tarfile

import pytest

from benchmarks import corpora
from search.evaluation.corpus_manifest import fingerprint


def npm_archive(folder, source: str) -> None:
    data = source.encode()
    with tarfile.open(folder / "toyjs-1.0.0.tgz", "w:gz") as tar:
        info = tarfile.TarInfo("package/lib/index.js")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    calls = []

    def fake_run(command, cwd):
        calls.append(command)
        npm_archive(cwd, "module.exports = 1;\n")

    monkeypatch.setattr(corpora, "_run", fake_run)
    expected = tmp_path / "expected"
    (expected).mkdir()
    (expected / "index.js").write_text("module.exports = 1;\n")
    digest, files = fingerprint(expected)
    path = tmp_path / "corpora.json"
    entry = {"ecosystem": "npm", "package": "toyjs", "version": "1.0.0", "root": "package/lib",
             "language": "javascript", "sha256": digest, "files": files}  # fmt: skip
    path.write_text(json.dumps({"toyjs": entry}))
    return path, calls


def test_fetch_unpacks_the_package_and_checks_it(manifest, tmp_path, capsys):
    path, calls = manifest
    into = tmp_path / "corpora"
    assert corpora.main(["fetch", "--manifest", str(path), "--into", str(into)]) == 0
    assert calls == [["npm", "pack", "toyjs@1.0.0", "--silent"]]
    assert (into / "npm" / "toyjs-1.0.0" / "package" / "lib" / "index.js").is_file()
    assert "toyjs: ok" in capsys.readouterr().out
    # A second fetch finds the copy there and downloads nothing.
    assert corpora.main(["fetch", "--manifest", str(path), "--into", str(into)]) == 0
    assert len(calls) == 1


def test_check_fails_on_a_changed_copy_and_record_accepts_it(manifest, tmp_path, capsys):
    path, _ = manifest
    into = tmp_path / "corpora"
    corpora.main(["fetch", "--manifest", str(path), "--into", str(into)])
    (into / "npm" / "toyjs-1.0.0" / "package" / "lib" / "index.js").write_text("changed\n")
    assert corpora.main(["check", "--manifest", str(path), "--into", str(into)]) == 1
    assert "toyjs: differs" in capsys.readouterr().out
    corpora.main(["record", "--manifest", str(path), "--into", str(into)])
    assert corpora.main(["check", "--manifest", str(path), "--into", str(into)]) == 0


def test_an_unknown_corpus_name_is_refused(manifest):
    path, _ = manifest
    with pytest.raises(SystemExit, match="not in the manifest: nope"):
        corpora.main(["check", "--manifest", str(path), "--only", "nope"])


def test_a_git_corpus_is_read_from_its_mirror_at_the_pinned_commit(tmp_path, capsys):
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "main.zig").write_text("pub fn main() void {}\n")

    def git(*args):
        subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    # A later commit changes the file: the corpus must be the pinned one.
    (work / "src" / "main.zig").write_text("changed\n")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    mirrors = tmp_path / "mirrors"
    subprocess.run(
        ["git", "clone", "--bare", "-q", str(work), str(mirrors / "someone+toyzig" / "repo")],
        check=True,
    )
    expected = tmp_path / "expected"
    expected.mkdir()
    (expected / "main.zig").write_text("pub fn main() void {}\n")
    digest, files = fingerprint(expected)
    path = tmp_path / "corpora.json"
    entry = {"ecosystem": "git", "package": "someone/toyzig", "version": commit, "root": "src",
             "language": "zig", "sha256": digest, "files": files}  # fmt: skip
    path.write_text(json.dumps({"toyzig": entry}))
    into = tmp_path / "corpora"
    args = ["fetch", "--manifest", str(path), "--into", str(into), "--mirrors", str(mirrors)]
    assert corpora.main(args) == 0
    assert (into / "git" / f"someone+toyzig-{commit}" / "src" / "main.zig").is_file()
    assert "toyzig: ok" in capsys.readouterr().out
