"""Docker or podman as the sandbox: the shared contract where an engine and its image are at
hand (not on the 2-core CI machine: skipped there), and the command it builds everywhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sandbox.base import Limits, SandboxUnavailable
from sandbox.container import ContainerSandbox
from tests.contracts import SandboxContract

ENGINE = next((e for e in ("podman", "docker") if shutil.which(e)), "")


@pytest.mark.skipif(
    not ENGINE or ContainerSandbox(engine=ENGINE).unavailable_reason() is not None,
    reason="no container engine with python:3.11-slim here",
)
class TestContainerSandbox(SandboxContract):
    @pytest.fixture
    def sandbox_backend(self):
        return ContainerSandbox(engine=ENGINE)


def test_command_isolates_and_limits():
    limits = Limits(cpu_s=3, memory_mb=256, processes=8, file_size_mb=2)
    argv = ContainerSandbox(engine="docker", image="py:test").command(
        work=Path("/w"), code=Path("/c"), limits=limits, name="n"
    )
    joined = " ".join(argv)
    for expected in (
        "--network none",
        "--read-only",
        "--memory 256m",
        "--pids-limit 8",
        "--ulimit cpu=3:4",
        f"--ulimit fsize={2 * 1024 * 1024}",
        "--cap-drop ALL",
        "--user 65534:65534",
        "/c:/sandbox/code:ro",
        "PYTHONPATH=/sandbox/code",
    ):
        assert expected in joined
    assert argv[-4:] == ["py:test", "python", "-B", "main.py"]


def test_missing_engine_is_a_clear_refusal():
    sandbox = ContainerSandbox(engine="no-such-engine")
    with pytest.raises(SandboxUnavailable, match="not installed"):
        sandbox.run("print(1)", limits=Limits())
