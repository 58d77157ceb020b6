"""Every Source passes the same contract."""

import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from indexing.sources import ArchiveSource, GitSource, LocalDirectorySource
from tests.conftest import git_commit_all
from tests.contracts import SourceContract


def write_tree(files: dict[str, str], root: Path) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


class TestLocalDirectorySource(SourceContract):
    @pytest.fixture
    def source_backend(self):
        return lambda files, tmp: LocalDirectorySource(path=write_tree(files, tmp / "local"))

    def break_source(self, source, tmp_path):
        shutil.rmtree(source.path)


class TestGitSource(SourceContract):
    @pytest.fixture
    def source_backend(self):
        def make(files, tmp):
            origin = write_tree(files, tmp / "origin")
            git_commit_all(origin)
            return GitSource(url=origin.as_uri())

        return make

    def break_source(self, source, tmp_path):
        shutil.rmtree(tmp_path / "origin")


class TestZipArchiveSource(SourceContract):
    @pytest.fixture
    def source_backend(self):
        def make(files, tmp):
            archive = tmp / "repo.zip"
            with zipfile.ZipFile(archive, "w") as zf:
                for name, text in files.items():
                    zf.writestr(f"repo-main/{name}", text)
            return ArchiveSource(path=archive)

        return make

    def break_source(self, source, tmp_path):
        Path(source.path).write_bytes(b"not an archive")


class TestTarArchiveSource(SourceContract):
    @pytest.fixture
    def source_backend(self):
        def make(files, tmp):
            tree = write_tree(files, tmp / "tree")
            archive = tmp / "repo.tar.gz"
            with tarfile.open(archive, "w:gz") as tf:
                tf.add(tree / "pkg", arcname="pkg")
            return ArchiveSource(path=archive)

        return make

    def break_source(self, source, tmp_path):
        Path(source.path).unlink()
