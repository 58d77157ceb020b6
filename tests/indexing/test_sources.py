import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from indexing.file_selection import iter_source_files
from indexing.sources import (
    ArchiveSource,
    GitSource,
    LocalDirectorySource,
    SourceError,
    SourceLimits,
)
from tests.conftest import git, git_commit_all


def make_zip(path: Path, members: dict[str, bytes], symlinks: dict[str, str] | None = None):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, target)
    return path


def make_tar(path: Path, build):
    with tarfile.open(path, "w:gz") as tf:
        build(tf)
    return path


def add_file(tf: tarfile.TarFile, name: str, data: bytes = b"x = 1\n"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def test_zip_extracts_and_unwraps_single_top_folder(tmp_path):
    archive = make_zip(
        tmp_path / "a.zip",
        {"proj-main/pkg/mod.py": b"def f():\n    pass\n", "proj-main/README": b"hi"},
    )
    fetched = ArchiveSource(path=archive).fetch(tmp_path / "work")
    assert (fetched.root / "pkg" / "mod.py").read_text().startswith("def f")
    assert fetched.root.name == "proj-main"


def test_tar_gz_extracts_and_keeps_a_top_level_package(tmp_path):
    def build(tf):
        add_file(tf, "pkg/__init__.py")
        add_file(tf, "pkg/mod.py")

    archive = make_tar(tmp_path / "a.tar.gz", build)
    fetched = ArchiveSource(path=archive).fetch(tmp_path / "work")
    # `pkg` is a package, not a wrapper folder: its name stays part of every path.
    assert (fetched.root / "pkg" / "mod.py").exists()


@pytest.mark.parametrize(
    "name, reason",
    [("../evil.py", "escapes"), ("a/../../evil.py", "escapes"), ("/etc/evil.py", "absolute")],
)
def test_zip_slip_and_absolute_paths_refused(tmp_path, name, reason):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo("ok.py"), b"x = 1")
        info = zipfile.ZipInfo("placeholder")
        info.filename = name  # ZipInfo normalises names; set the raw one an attacker would
        zf.writestr(info, b"x = 1")
    with pytest.raises(SourceError, match=reason):
        ArchiveSource(path=archive).fetch(tmp_path / "work")
    assert not (tmp_path / "evil.py").exists()
    assert not (tmp_path / "work" / "archive" / "ok.py").exists(), "nothing may be written"


@pytest.mark.parametrize("name, reason", [("../evil.py", "escapes"), ("/tmp/evil.py", "absolute")])
def test_tar_slip_and_absolute_paths_refused(tmp_path, name, reason):
    archive = make_tar(tmp_path / "bad.tar.gz", lambda tf: add_file(tf, name))
    with pytest.raises(SourceError, match=reason):
        ArchiveSource(path=archive).fetch(tmp_path / "work")


def test_zip_symlink_refused(tmp_path):
    archive = make_zip(tmp_path / "l.zip", {"a.py": b"x=1"}, symlinks={"link.py": "/etc/passwd"})
    with pytest.raises(SourceError, match="symbolic link"):
        ArchiveSource(path=archive).fetch(tmp_path / "work")


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_tar_links_refused(tmp_path, kind):
    def build(tf):
        info = tarfile.TarInfo("link.py")
        info.type = kind
        info.linkname = "/etc/passwd"
        tf.addfile(info)

    with pytest.raises(SourceError, match="link"):
        ArchiveSource(path=make_tar(tmp_path / "l.tar.gz", build)).fetch(tmp_path / "work")


def test_tar_device_file_refused(tmp_path):
    def build(tf):
        info = tarfile.TarInfo("dev")
        info.type = tarfile.CHRTYPE
        tf.addfile(info)

    with pytest.raises(SourceError, match="special file"):
        ArchiveSource(path=make_tar(tmp_path / "d.tar.gz", build)).fetch(tmp_path / "work")


def test_too_many_files_refused(tmp_path):
    archive = make_zip(tmp_path / "many.zip", {f"m{i}.py": b"x=1" for i in range(11)})
    with pytest.raises(SourceError, match="more than 10 files"):
        ArchiveSource(path=archive, limits=SourceLimits(max_archive_files=10)).fetch(
            tmp_path / "work"
        )


def test_too_many_bytes_refused(tmp_path):
    archive = make_zip(tmp_path / "big.zip", {"a.py": os.urandom(5000)})
    with pytest.raises(SourceError, match="expands to more than 4096 bytes"):
        ArchiveSource(path=archive, limits=SourceLimits(max_archive_bytes=4096)).fetch(
            tmp_path / "work"
        )


def test_zip_bomb_ratio_refused(tmp_path):
    archive = make_zip(tmp_path / "bomb.zip", {"zeros.py": b"\0" * (20 * 1024 * 1024)})
    assert archive.stat().st_size < 100_000
    with pytest.raises(SourceError, match="zip bomb"):
        ArchiveSource(path=archive).fetch(tmp_path / "work")


def test_zip_lying_about_its_size_is_caught_while_writing(tmp_path):
    archive = make_zip(tmp_path / "liar.zip", {"a.py": os.urandom(3000)})
    # Shrink the declared size in the central directory: the real bytes must still be counted.
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("a.py")
    limits = SourceLimits(max_archive_bytes=2000)
    assert info.file_size == 3000
    with pytest.raises(SourceError):
        ArchiveSource(path=archive, limits=limits).fetch(tmp_path / "work")
    assert data  # the archive itself is untouched


def test_not_an_archive(tmp_path):
    bogus = tmp_path / "x.zip"
    bogus.write_bytes(b"this is not a zip")
    with pytest.raises(SourceError, match="not a zip or tar"):
        ArchiveSource(path=bogus).fetch(tmp_path / "work")


def test_truncated_tar_is_a_clear_error(tmp_path):
    archive = make_tar(tmp_path / "t.tar.gz", lambda tf: add_file(tf, "a.py", os.urandom(100_000)))
    archive.write_bytes(archive.read_bytes()[:5000])
    with pytest.raises(SourceError):
        ArchiveSource(path=archive).fetch(tmp_path / "work")


def test_git_clone_file_url_records_commit_and_honours_ref(tmp_path, write_repo):
    origin = write_repo({"a.py": "def first():\n    pass\n"})
    first_sha = git_commit_all(origin, "first")
    (origin / "a.py").write_text("def second():\n    pass\n")
    second_sha = git_commit_all(origin, "second")
    git(origin, "tag", "v1", first_sha)

    head = GitSource(url=origin.as_uri()).fetch(tmp_path / "w1")
    assert head.commit_sha == second_sha
    assert "second" in (head.root / "a.py").read_text()

    tagged = GitSource(url=origin.as_uri(), ref="v1").fetch(tmp_path / "w2")
    assert tagged.commit_sha == first_sha

    pinned = GitSource(url=origin.as_uri(), ref=first_sha).fetch(tmp_path / "w3")
    assert pinned.commit_sha == first_sha
    assert "first" in (pinned.root / "a.py").read_text()


def test_git_failure_is_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match="git clone failed"):
        GitSource(url=(tmp_path / "nope").as_uri()).fetch(tmp_path / "w")
    with pytest.raises(SourceError, match="may not start with '-'"):
        GitSource(url="--upload-pack=touch /tmp/pwned").fetch(tmp_path / "w")


def test_local_directory_missing(tmp_path):
    with pytest.raises(SourceError, match="not a directory"):
        LocalDirectorySource(path=tmp_path / "missing").fetch(tmp_path)


def test_walker_skips_vendored_large_and_linked_files(tmp_path, write_repo):
    root = write_repo(
        {
            "pkg/a.py": "x = 1\n",
            "pkg/notes.txt": "not python",
            "build/gen.py": "x = 1\n",
            "node_modules/m/x.py": "x = 1\n",
            ".venv/lib/site.py": "x = 1\n",
            "lib/site-packages/dep.py": "x = 1\n",
            "pkg/big.py": "x = 1\n" * 1000,
            # A package named like an output folder is source (pip/_internal/operations/build).
            "pkg/build/__init__.py": "",
            "pkg/build/wheel.py": "x = 1\n",
        }
    )
    (root / "pkg" / "link.py").symlink_to(root / "pkg" / "a.py")
    warnings: list[str] = []
    entries = iter_source_files(root, max_file_bytes=1000, warnings=warnings)
    paths = [e.path for e in entries]
    assert paths == ["pkg/a.py", "pkg/build/__init__.py", "pkg/build/wheel.py"]
    assert any("node_modules/..." in w and "vendored" in w for w in warnings)
    assert any("pkg/big.py" in w and "limit" in w for w in warnings)
    assert any("pkg/link.py" in w and "symbolic link" in w for w in warnings)
