"""What size costs: trees of about 2k, 20k and 200k units built from the virtual environment's
own site-packages, each indexed from an empty data dir (no vector cache: every unit is
embedded), then searched in fast mode one request at a time in a warm process.

    python -m benchmarks.scale [--sizes 2000 20000 200000] [--queries 100]   (make bench-scale)

Per tree: files, units, index time and units/s, the indexing process's peak RSS, disk (SQL,
Chroma, lexical index), fast-mode p50/p95/max, the serving process's RSS and the search's
stages at p50. Each tree is indexed and searched in its own process, so peak memory is its own.
Writes docs/eval/scale.json, docs/eval/scale.png and the "scale" section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from benchmarks.common import ROOT, python_files, status_mib, write_section

# Packages never copied into a tree: compiled-only or data-only, and the model wheels.
SKIP = {"__pycache__", "_distutils_hack", "pip", "setuptools", "pkg_resources"}
QUERIES = [
    "retry failed http calls",
    "parse a date from a string",
    "read a json configuration file",
    "connect to a database",
    "validate an email address",
    "compute a checksum of a file",
    "render a template with a context",
    "split a path into its parts",
    "log a warning message",
    "merge two dictionaries",
]


def package_units(site: Path) -> list[tuple[str, int]]:
    """(package dir, units) for every package of site-packages, in name order."""
    from indexing.parsing import parse_source

    sizes = []
    for entry in sorted(site.iterdir()):
        if not entry.is_dir() or entry.name in SKIP or "." in entry.name:
            continue
        files = python_files(entry)
        if not files:
            continue
        units = sum(len(parse_source(f.absolute.read_bytes()).units) for f in files)
        if units:
            sizes.append((entry.name, units))
    return sizes


def choose(sizes: list[tuple[str, int]], target: int) -> list[str]:
    """Packages whose units add up to about `target`: largest first while they fit, then the
    smallest to fill up. Deterministic for a given site-packages."""
    chosen, total = [], 0
    for name, units in sorted(sizes, key=lambda s: (-s[1], s[0])):
        if total + units <= target * 1.05:
            chosen.append(name)
            total += units
    return sorted(chosen)


def build_tree(site: Path, names: list[str], root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for name in names:
        shutil.copytree(site / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def measure_one(tree: Path, queries: int) -> dict:
    """Run in a child process: index `tree` into a fresh data dir, then search it."""
    from benchmarks.common import setup_django

    data = setup_django()
    import indexing.services
    from indexing.services import index_run_execute, index_run_start, repository_create
    from search.evaluation.metrics import percentile
    from search.services import search

    repository = repository_create(name="scale", source=str(tree))
    # Where the peak comes from: the high-water mark when publishing starts is that of
    # fetching, parsing and embedding; the rest is publishing (the lexical index).
    before_publish = {}
    publish = indexing.services.publish_run

    def publish_noting_memory(**kwargs):
        before_publish.update(hwm=round(status_mib("VmHWM")), rss=round(status_mib()))
        return publish(**kwargs)

    indexing.services.publish_run = publish_noting_memory
    start = time.perf_counter()
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    index_s = time.perf_counter() - start
    assert run.status == "succeeded", run.error
    index_peak_mib = round(status_mib("VmHWM"))
    search(repository=repository, query="warm up", k=10)
    times, stages = [], {}
    for i in range(queries):
        response = search(repository=repository, query=QUERIES[i % len(QUERIES)], k=10)
        times.append(response.timings_ms["total"])
        for stage, ms in response.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    return {
        "files": run.files_total,
        "units": run.units_total,
        "index_s": round(index_s, 1),
        "units_per_s": round(run.units_total / index_s, 1),
        "index_peak_rss_mib": index_peak_mib,
        "before_publish_mib": before_publish,
        "disk_mib": {
            "sql": round(sum(p.stat().st_size for p in data.glob("db.sqlite3*")) / 2**20, 1),
            "chroma": round(directory_bytes(data / "chroma") / 2**20, 1),
            "lexical": round(directory_bytes(data / "lexical") / 2**20, 1),
        },
        "fast_ms": {
            "p50": round(percentile(times, 50), 1),
            "p95": round(percentile(times, 95), 1),
            "max": round(max(times), 1),
        },
        "stages_p50_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "serving_rss_mib": round(status_mib()),
    }


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    units = [r["units"] for r in results]
    series = {
        "index time (s)": [r["index_s"] for r in results],
        "fast p95 (ms)": [r["fast_ms"]["p95"] for r in results],
        "indexing peak RSS (MiB)": [r["index_peak_rss_mib"] for r in results],
        "serving RSS (MiB)": [r["serving_rss_mib"] for r in results],
        "disk (MiB)": [sum(r["disk_mib"].values()) for r in results],
    }
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, values in series.items():
        ax.loglog(units, values, marker="o", label=label)
    ax.set_xlabel("units in the repository")
    ax.set_title("RepoRift: cost against repository size (2 cores)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def size_class(units: int) -> int:
    """2k, 20k and 200k trees: one class per power of ten."""
    return round(math.log10(max(units, 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2000, 20000, 200000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--work", type=Path, default=Path("var/benchmarks/scale"))
    parser.add_argument(
        "--add",
        action="store_true",
        help="keep the other sizes of docs/eval/scale.json (one size at a time on a slow machine)",
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_one(args.child, args.queries)))
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    site = Path(sysconfig.get_paths()["purelib"])
    sizes = package_units(site)
    results = []
    for target in args.sizes:
        tree = args.work / f"tree-{target}"
        names = choose(sizes, target)
        build_tree(site, names, tree)
        print(f"tree of ~{target} units: {len(names)} packages", flush=True)
        command = [sys.executable, "-m", "benchmarks.scale", "--child", str(tree)]
        command += ["--queries", str(args.queries)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1]) | {"packages": names}
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "packages"}), flush=True)
    out = ROOT / "docs" / "eval"
    if args.add and (out / "scale.json").exists():
        # Sizes measured in an earlier run stay, unless this run measured their size again.
        fresh = {size_class(r["units"]) for r in results}
        earlier = json.loads((out / "scale.json").read_text())
        results = [r for r in earlier if size_class(r["units"]) not in fresh] + results
        results.sort(key=lambda r: r["units"])
    (out / "scale.json").write_text(json.dumps(results, indent=1))
    plot(results, out / "scale.png")
    # The section of BENCHMARKS is rendered from the report, as `make bench-reports` renders it.
    from benchmarks.run import SECTIONS

    write_section("scale", SECTIONS["scale"]())


if __name__ == "__main__":
    main()
