"""bubblewrap, the default sandbox: the shared contract, run for real (make test installs
Debian's bubblewrap), plus what is particular to it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.base import Limits, SandboxUnavailable
from sandbox.bubblewrap import BubblewrapSandbox
from tests.contracts import SandboxContract


class TestBubblewrapSandbox(SandboxContract):
    @pytest.fixture
    def sandbox_backend(self):
        return BubblewrapSandbox()


@pytest.fixture(scope="module")
def venv_under_tmp() -> Iterator[Path]:
    """A venv where a clone under /tmp has one: the sandbox mounts a tmpfs of its own on /tmp,
    which hid the venv's interpreter. Made under /tmp itself, not wherever pytest's temporary
    directories are configured to be."""
    with tempfile.TemporaryDirectory(prefix="reporift-clone-", dir="/tmp") as tmp:
        venv = Path(tmp) / "clone" / ".venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        yield venv


@pytest.mark.slow
class TestBubblewrapSandboxWithVenvUnderTmp(SandboxContract):
    """Every protection of the contract holds with a venv under /tmp too."""

    @pytest.fixture
    def sandbox_backend(self, venv_under_tmp):
        return BubblewrapSandbox(python=str(venv_under_tmp / "bin" / "python"))


def test_runs_a_venv_under_tmp_from_any_working_directory(venv_under_tmp, monkeypatch):
    # Started by a relative path from the clone's own directory, as `.venv/bin/python` is there.
    monkeypatch.chdir(venv_under_tmp.parent)
    program = "import sys\nprint(sys.prefix)\nprint(sys.base_prefix)\n"
    done = BubblewrapSandbox(python=".venv/bin/python").run(program, limits=Limits(wall_s=10))
    assert done.passed, done.stderr
    assert done.stdout.split() == [str(venv_under_tmp), sys.base_prefix]


def test_runs_as_another_user_without_capabilities():
    program = (
        "import os\n"
        "print(os.getuid())\n"
        "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
    )
    done = BubblewrapSandbox().run(program, limits=Limits(wall_s=10))
    uid, caps = done.stdout.split()
    assert done.passed
    assert int(caps, 16) == 0
    if os.geteuid() == 0:
        assert int(uid) != 0


def test_sees_no_secrets_of_this_machine():
    program = (
        "import os\n"
        "print(sorted(os.listdir('/')))\n"
        "print(os.path.exists('/etc/passwd'), os.path.exists('/root/.ssh'))\n"
    )
    done = BubblewrapSandbox().run(program, limits=Limits(wall_s=10))
    assert done.passed, done.stderr
    assert "False False" in done.stdout
    assert "'home'" not in done.stdout and "'var'" not in done.stdout


def test_missing_bubblewrap_is_a_clear_refusal():
    with pytest.raises(SandboxUnavailable, match="not installed"):
        BubblewrapSandbox(bwrap="/nonexistent/bwrap").run("print(1)", limits=Limits())
