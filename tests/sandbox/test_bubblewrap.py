"""bubblewrap, the default sandbox: the shared contract, run for real (make test installs
Debian's bubblewrap), plus what is particular to it."""

from __future__ import annotations

import os

import pytest

from sandbox.base import Limits, SandboxUnavailable
from sandbox.bubblewrap import BubblewrapSandbox
from tests.contracts import SandboxContract


class TestBubblewrapSandbox(SandboxContract):
    @pytest.fixture
    def sandbox_backend(self):
        return BubblewrapSandbox()


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
