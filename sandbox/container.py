"""A container engine as the sandbox (REPORIFT_SANDBOX=docker or podman), for operators who
already run one: the program runs in `image` with no network, a read-only root, a pid limit and
the memory and CPU limits of `Limits`, as an unprivileged user."""

from __future__ import annotations

import functools
import shutil
import subprocess
import uuid
from pathlib import Path

from sandbox.base import Execution, Limits, prepared
from sandbox.process import execute

WORK, CODE = "/sandbox/work", "/sandbox/code"


class ContainerSandbox:
    def __init__(self, *, engine: str = "docker", image: str = "python:3.11-slim") -> None:
        self.engine = engine
        self.image = image
        self.name = engine

    def unavailable_reason(self) -> str | None:
        return _probe(self.engine, self.image)

    def run(self, program: str, *, code_dir: Path | None = None, limits: Limits) -> Execution:
        with prepared(self, program, code_dir) as (scratch, work, code):
            work.chmod(0o777)  # the container's user is not this process's
            name = f"reporift-sandbox-{uuid.uuid4().hex[:12]}"
            argv = self.command(work=work, code=code, limits=limits, name=name)
            execution = execute(
                argv,
                limits=limits,
                scratch=scratch,
                backend=self.name,
                on_timeout=lambda: self._kill(name),
            )
            if execution.exit_code == 137 and not execution.limit:
                execution.status, execution.limit = "stopped", "memory"  # the OOM killer
            return execution

    def command(self, *, work: Path, code: Path | None, limits: Limits, name: str) -> list[str]:
        mb = 1024 * 1024
        argv = [self.engine, "run", "--rm", "--name", name, "--network", "none"]
        argv += ["--read-only", "--tmpfs", "/tmp:size=64m", "--user", "65534:65534"]
        argv += ["--memory", f"{limits.memory_mb}m", "--memory-swap", f"{limits.memory_mb}m"]
        argv += ["--pids-limit", str(limits.processes), "--cpus", "1"]
        argv += ["--ulimit", f"cpu={limits.cpu_s}:{limits.cpu_s + 1}"]
        argv += ["--ulimit", f"fsize={limits.file_size_mb * mb}"]
        argv += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
        argv += ["-v", f"{work}:{WORK}:rw", "-w", WORK]
        argv += ["-e", "PYTHONDONTWRITEBYTECODE=1", "-e", "HOME=" + WORK]
        if code is not None:
            argv += ["-v", f"{code}:{CODE}:ro", "-e", f"PYTHONPATH={CODE}"]
        return [*argv, self.image, "python", "-B", "main.py"]

    def _kill(self, name: str) -> None:
        subprocess.run([self.engine, "kill", name], capture_output=True, timeout=30, check=False)


@functools.cache
def _probe(engine: str, image: str) -> str | None:
    if shutil.which(engine) is None:
        return f"{engine} is not installed"
    try:
        done = subprocess.run(
            [engine, "image", "inspect", image], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{engine} does not answer: {exc}"
    if done.returncode != 0:
        return f"{engine} has no image {image!r} (pull it first; runs never pull)"
    return None
