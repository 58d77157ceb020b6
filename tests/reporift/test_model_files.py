"""Model files built once and checked: a file of the wrong size or hash is refused, never
served; a damaged copy is rebuilt; a changed recipe rebuilds."""

import hashlib
import threading

import pytest

from reporift.model_files import ModelFileError, built_file, check_file

DATA = b"gguf" * 1000
SHA = hashlib.sha256(DATA).hexdigest()


def writer(data: bytes, calls: list):
    def build(out):
        calls.append(1)
        out.write_bytes(data)

    return build


def test_built_once_and_checked(tmp_path):
    calls: list = []
    target = tmp_path / "m.gguf"
    for _ in range(2):
        assert built_file(target, writer(DATA, calls), recipe={"v": 1}, size=len(DATA), sha256=SHA)
    assert target.read_bytes() == DATA and len(calls) == 1
    assert not target.with_name("m.gguf.partial").exists()


def test_wrong_size_or_hash_is_refused_and_not_kept(tmp_path):
    target = tmp_path / "m.gguf"
    with pytest.raises(ModelFileError, match="expected 4,000"):
        built_file(target, writer(DATA[:-1], []), recipe={}, size=len(DATA))
    with pytest.raises(ModelFileError, match="not the expected model"):
        built_file(target, writer(DATA[:-1] + b"X", []), recipe={}, sha256=SHA)
    assert not target.exists()


def test_damaged_copy_is_rebuilt_and_new_recipe_rebuilds(tmp_path):
    import reporift.model_files as model_files

    calls: list = []
    target = tmp_path / "m.gguf"
    built_file(target, writer(DATA, calls), recipe={"v": 1}, sha256=SHA)
    target.write_bytes(b"truncated")  # the disk lost it
    model_files._verified.clear()  # a new process
    built_file(target, writer(DATA, calls), recipe={"v": 1}, sha256=SHA)
    assert target.read_bytes() == DATA and len(calls) == 2
    built_file(target, writer(DATA, calls), recipe={"v": 2}, sha256=SHA)
    assert len(calls) == 3


def test_concurrent_first_uses_build_once(tmp_path):
    calls: list = []
    target = tmp_path / "m.gguf"
    threads = [
        threading.Thread(
            target=built_file, args=(target, writer(DATA, calls)), kwargs={"recipe": {}}
        )
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1


def test_check_file(tmp_path):
    path = tmp_path / "x"
    with pytest.raises(ModelFileError, match="not found"):
        check_file(path)
    path.write_bytes(DATA)
    check_file(path, size=len(DATA), sha256=SHA)
