"""The `reporift` command on a data dir it has never seen."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reporift.commands import COMMANDS, DJANGO_OPTIONS, run_command

ROOT = Path(__file__).resolve().parents[2]


def test_a_new_data_dir_is_migrated_before_the_command_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "reporift.cli", "search", "nothing-indexed", "greet someone"],
        cwd=ROOT,
        # In this process: the warm server has its own test (tests/reporift/test_cli_server.py).
        env={**os.environ, "REPORIFT_DATA_DIR": str(tmp_path / "data"), "REPORIFT_CLI_SERVER": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Not "no such table": the command itself answers, about the repository it does not know.
    assert "no such table" not in done.stderr, done.stderr[-2000:]
    assert "nothing-indexed" in done.stderr + done.stdout, done.stderr[-2000:]


def test_serve_raises_gunicorns_request_line_limit_so_the_application_answers(monkeypatch):
    from django.core import management

    from reporift import cli

    calls = []
    monkeypatch.setattr(management, "call_command", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: calls.append((path, argv)))
    cli.serve(["--bind", "127.0.0.1:9999"])
    [(path, argv)] = calls
    assert path.endswith("gunicorn") and argv[0] == path
    assert argv[argv.index("--limit-request-line") + 1] == "8190"
    assert argv[argv.index("--bind") + 1] == "127.0.0.1:9999"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_only_the_commands_own_options(name, capsys):
    with pytest.raises(SystemExit):
        run_command([name, "--help"])
    shown = capsys.readouterr().out
    assert shown.startswith(f"usage: reporift {name}")
    assert not any(option in shown for option in DJANGO_OPTIONS)
