"""The warm server behind `reporift search`: it answers as the command would, exits when its
code changed, and a real client reaches one it started itself."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reporift import cli_server
from reporift.commands import run_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db  # each answer closes the connections a previous one left unusable
def test_an_answer_carries_output_and_exit_code(tmp_path):
    help_reply = cli_server._answer(
        {"argv": ["search", "--help"], "cwd": str(tmp_path)}, run_command
    )
    assert help_reply["code"] == 0 and help_reply["stdout"].startswith("usage: reporift search")
    wrong = cli_server._answer(
        {"argv": ["search", "x", "q", "--k", "many"], "cwd": "/"}, run_command
    )
    assert wrong["code"] == 2 and "invalid int value: 'many'" in wrong["stderr"]


def test_a_changed_source_file_is_seen(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    seen = {str(source): source.stat().st_mtime_ns}
    assert not cli_server._changed(seen)
    os.utime(source, ns=(1, 1))
    assert cli_server._changed(seen)


def test_the_socket_depends_on_the_data_dir_and_configuration(monkeypatch, tmp_path):
    monkeypatch.setenv("REPORIFT_DATA_DIR", str(tmp_path / "a"))
    first = cli_server.socket_path()
    monkeypatch.setenv("REPORIFT_DATA_DIR", str(tmp_path / "b"))
    assert cli_server.socket_path() != first
    monkeypatch.setenv("REPORIFT_DATA_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("REPORIFT_LLM_MODEL", "another")
    assert cli_server.socket_path() != first
    assert len(str(first)) < 100  # the unix socket path limit


@pytest.mark.slow
def test_a_search_starts_the_server_and_the_next_one_reuses_it(tmp_path):
    env = {
        **os.environ,
        "REPORIFT_DATA_DIR": str(tmp_path / "data"),
        "REPORIFT_STATIC_TIER": "0",  # no distilling in a new data dir: the server starts in s
        "REPORIFT_CLI_SERVER": "1",
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)

    def search(name: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "reporift.cli", "search", name, "charge a card"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    try:
        first = search("shp")
        assert first.returncode == 1 and "no repository named 'shp'" in first.stderr
        sockets = list((tmp_path / "run").glob("reporift-*/search-*.sock"))
        assert len(sockets) == 1  # the server answered, and is still there
        bound = sockets[0].stat().st_ino
        second = search("shop")
        assert second.returncode == 1 and "no repository named 'shop'" in second.stderr
        assert sockets[0].stat().st_ino == bound  # the same server: a new one binds anew
    finally:
        for socket in (tmp_path / "run").glob("reporift-*/search-*.sock"):
            assert cli_server.stop(socket)


@pytest.mark.slow
def test_index_leaves_a_warm_server_that_answers_the_first_search(tmp_path, write_repo):
    from tests.conftest import SAMPLE_FILES

    env = {
        **os.environ,
        "REPORIFT_DATA_DIR": str(tmp_path / "data"),
        "REPORIFT_STATIC_TIER": "0",
        "REPORIFT_PHASE2_MAX_UNITS": "1",  # phase 1 only: the test is about the server
        "REPORIFT_CLI_SERVER": "1",
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)

    def reporift(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "reporift.cli", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    try:
        indexed = reporift("index", str(write_repo(SAMPLE_FILES)), "--name", "shop")
        assert indexed.returncode == 0, indexed.stderr
        assert "search server ready" in indexed.stderr
        sockets = list((tmp_path / "run").glob("reporift-*/search-*.sock"))
        assert len(sockets) == 1
        bound = sockets[0].stat().st_ino
        found = reporift("search", "shop", "retry a failed http call", "--k", "1")
        assert found.returncode == 0 and "retry_http_call" in found.stdout
        # Answered by the server index started, not by one the search had to start.
        assert sockets[0].stat().st_ino == bound
        log = (tmp_path / "data" / "logs" / "cli-server.log").read_text()
        assert log.count("warm-up:") == 1
    finally:
        for socket in (tmp_path / "run").glob("reporift-*/search-*.sock"):
            cli_server.stop(socket)
