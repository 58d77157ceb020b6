"""Indexing spread over Celery workers on the local Redis: one worker process running two chunk
tasks at a time (threads, two embedding threads) against two worker processes running one each
(one embedding thread each), on the same tree, each from an empty data dir.

    python -m benchmarks.workers [--packages kombu requests] [--chunk-files 20]

Needs the Redis on 127.0.0.1:6379 (database 13 is used and flushed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.common import ROOT, machine_line, package_dir, write_section

BROKER = "redis://127.0.0.1:6379/13"
SETUPS = {
    "one worker, two threads": [("threads", 2, 2)],
    "two workers, one thread each": [("solo", 1, 1), ("solo", 1, 1)],
}


def measure(tree: Path, setup: list[tuple[str, int, int]], chunk_files: int) -> dict:
    data = Path(tempfile.mkdtemp(prefix="reporift-workers-"))
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reporift.settings",
        "REPORIFT_DATA_DIR": str(data),
        "CELERY_BROKER_URL": BROKER,
        "REPORIFT_CELERY_QUEUE": queue,
        "REPORIFT_INDEX_CHUNK_FILES": str(chunk_files),
    }
    for name in ("DATABASE_URL", "REDIS_URL", "CHROMA_HOST"):
        env.pop(name, None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "reporift",
                "worker",
                f"--pool={pool}",
                f"--concurrency={concurrency}",
                "-Q",
                queue,
                "--without-gossip",
                "--without-mingle",
                "-l",
                "WARNING",
            ],
            cwd=ROOT,
            env={**env, "REPORIFT_EMBED_THREADS": str(threads)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pool, concurrency, threads in setup
    ]
    try:
        time.sleep(8)  # workers connect and load the embedder
        script = (
            "import time; from indexing.services import *; from indexing.models import IndexRun\n"
            f"r = repository_create(name='w', source={str(tree)!r})\n"
            "run = index_run_start(repository=r); start = time.time()\n"
            "while True:\n"
            "    run.refresh_from_db()\n"
            "    if run.is_finished: break\n"
            "    time.sleep(0.5)\n"
            "print(run.error or '', run.status, run.units_total, round(time.time() - start, 1))\n"
        )
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        status, units, seconds = done.stdout.split()[-3:]
        assert status == "succeeded", done.stdout + done.stderr
        return {"units": int(units), "seconds": float(seconds)}
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", default=["kombu", "requests"])
    parser.add_argument("--chunk-files", type=int, default=20)
    args = parser.parse_args()
    subprocess.run(["redis-cli", "-n", "13", "flushdb"], check=True, capture_output=True)
    tree = Path(tempfile.mkdtemp(prefix="reporift-workers-tree-"))
    for name in args.packages:
        shutil.copytree(
            package_dir(name), tree / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    rows = []
    for label, setup in SETUPS.items():
        result = measure(tree, setup, args.chunk_files)
        rows.append((label, result))
        print(label, result, flush=True)
    shutil.rmtree(tree, ignore_errors=True)
    base = rows[0][1]["seconds"]
    lines = [
        "## Indexing over Celery workers",
        "",
        f"Machine: {machine_line()}. Command: `python -m benchmarks.workers --packages "
        f"{' '.join(args.packages)} --chunk-files {args.chunk_files}`. Each setup indexes the "
        "same tree from an empty data dir (no vector cache) through Redis; the time is from "
        "the request to the published generation.",
        "",
        "| setup | units | time | units/s | vs the first |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, r in rows:
        lines.append(
            f"| {label} | {r['units']:,} | {r['seconds']:.1f} s | {r['units'] / r['seconds']:.1f} "
            f"| {base / r['seconds']:.2f}x |"
        )
    write_section("workers", "\n".join(lines))


if __name__ == "__main__":
    main()
