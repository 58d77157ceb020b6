"""Helpers shared by the benchmarks: an isolated Django set-up, the BENCHMARKS.md writer, a fixed
order for choices, plain word sets, and what the speed benchmarks ask of a machine."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import urllib.request
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "BENCHMARKS.md"
# Models are local files: nothing may be fetched while a benchmark measures.
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def order_key(*parts: str) -> str:
    """A pseudo-random key that is the same on every machine and run: ties and samples broken
    by it make the same choices everywhere (Python's own hash of a string changes per run)."""
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()


def words_of(text: str) -> frozenset[str]:
    """The lowercase runs of letters and digits of a text: what the benchmarks' data builders
    compare a query with a candidate by."""
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def difference(d: dict) -> str:
    """A paired difference with its interval, "(noise)" when the interval holds zero."""
    cell = f"{d['difference']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
    return f"{cell} (noise)" if d["low"] <= 0 <= d["high"] else cell


def setup_django(data_dir: str | None = None) -> Path:
    """Configure Django against a fresh data dir, so a benchmark never touches `var/`."""
    data = Path(data_dir or tempfile.mkdtemp(prefix="reporift-bench-"))
    os.environ["REPORIFT_DATA_DIR"] = str(data)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CHROMA_HOST"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return data


def python_files(root: Path) -> list:
    """The Python files the product would index under `root` (benchmarks of Python corpora)."""
    from indexing.file_selection import iter_source_files

    entries = iter_source_files(root, max_file_bytes=2 * 1024 * 1024, warnings=[])
    return [entry for entry in entries if entry.path.endswith(".py")]


def package_dir(name: str) -> Path:
    from search.evaluation.dataset_types import DatasetError
    from search.evaluation.questions import package_root

    try:
        return package_root(name)
    except DatasetError as exc:
        raise SystemExit(str(exc)) from exc


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
        cpu = model
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {date.today()}"


def write_section(name: str, body: str) -> bool:
    """Replace the section between `<!-- section: name -->` and `<!-- end -->` of the first part
    of docs/BENCHMARKS.md. A section the document does not have is not added (the report is the
    record): False then."""
    text = DOC.read_text()
    begin, end = f"<!-- section: {name} -->", "<!-- end -->"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        print(f"docs/BENCHMARKS.md has no section {name!r}: left as it is", file=sys.stderr)
        return False
    DOC.write_text(pattern.sub(lambda _: f"{begin}\n{body.strip()}\n{end}", text, count=1))
    return True


def run_module(module: str, *args: str) -> None:
    """Each benchmark runs in its own process: peak memory is then its own."""
    subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, check=True)


def without_packages(dataset, packages: list[str]):
    """The dataset less the corpora whose name starts with one of `packages` ("pip" drops
    "pip-23.2.1"): indexing every dev package takes over an hour on 2 cores."""

    def name(key: str) -> str:  # ".../packages/pip-23.2.1@" -> "pip-23.2.1"
        return Path(key.split("@")[0]).name

    dropped = {k for k in dataset.corpora if any(name(k).startswith(f"{p}-") for p in packages)}
    dataset.corpora = {k: c for k, c in dataset.corpora.items() if k not in dropped}
    dataset.queries = [q for q in dataset.queries if q.corpus not in dropped]
    return dataset


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(url: str, timeout: float = 60) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return reply.read()


def status_mib(field: str = "VmRSS") -> float:
    """A memory figure of this process (VmRSS, VmHWM: the peak) from /proc, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def short_commit(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip()
