"""Indexing throughput: whole pipeline vs the raw embedder on the same texts, same process.

python -m benchmarks.indexing [--packages requests kombu]
"""

from __future__ import annotations

import argparse
import resource
import time

from benchmarks.common import machine_line, package_dir, setup_django, write_section


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", nargs="+", default=["requests", "kombu"])
    args = parser.parse_args()
    setup_django()

    from django.conf import settings

    from indexing.embedding import get_embedder
    from indexing.parsing import parse_source
    from indexing.services import index_run_execute, index_run_start, repository_create
    from indexing.sources import iter_python_files
    from indexing.unit_text import unit_text

    load_start = time.perf_counter()
    embedder = get_embedder()
    embedder.embed(["warm up"])
    load_s = time.perf_counter() - load_start

    rows = []
    for name in args.packages:
        root = package_dir(name)
        repository = repository_create(name=f"bench-{name}", source=str(root))
        start = time.perf_counter()
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        full_s = time.perf_counter() - start
        assert run.status == "succeeded", run.error
        start = time.perf_counter()
        again = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        noop_s = time.perf_counter() - start

        # The same texts through the embedder alone.
        files = list(iter_python_files(root, max_file_bytes=2**21, warnings=[]))
        texts = []
        for entry in files:
            for unit in parse_source(entry.absolute.read_bytes()).units:
                texts.append(unit_text(_Parts(entry.path, unit), settings.REPORIFT["EMBED_TEXT"]))
        start = time.perf_counter()
        embedder.embed(texts)
        raw_s = time.perf_counter() - start
        rows.append(
            {
                "name": name,
                "files": run.files_total,
                "units": run.units_total,
                "full_s": full_s,
                "pipeline_ups": run.units_total / full_s,
                "raw_ups": len(texts) / raw_s,
                "noop_s": noop_s,
                "noop_reused": again.files_reused,
            }
        )
        print(rows[-1])
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    lines = [
        "## Indexing throughput",
        "",
        f"Machine: {machine_line()}. Command: `python -m benchmarks.indexing "
        f"--packages {' '.join(args.packages)}` (part of `make bench`).",
        f"Embedder `{embedder.model_id}`, text style `{settings.REPORIFT['EMBED_TEXT']}`, "
        f"embedded Chroma and SQLite. Model load: {load_s:.1f} s.",
        "",
        "| repository (installed package source) | files | units | full index | pipeline units/s "
        "| raw embedder units/s (same texts) | pipeline / raw | re-index, nothing changed |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['files']} | {r['units']} | {r['full_s']:.1f} s "
            f"| {r['pipeline_ups']:.1f} | {r['raw_ups']:.1f} "
            f"| {r['pipeline_ups'] / r['raw_ups']:.2f} "
            f"| {r['noop_s']:.2f} s ({r['noop_reused']} files reused) |"
        )
    lines += [
        "",
        f"Peak resident memory of the benchmark process: {peak_mib:.0f} MiB.",
        "Embedding dominates: parsing, SQL writes and Chroma upserts cost the difference between "
        "the two throughput columns.",
    ]
    write_section("indexing", "\n".join(lines))


class _Parts:
    def __init__(self, path, unit):
        self.path = path
        self.qualname = unit.qualname
        self.docstring = unit.docstring
        self.code = unit.code


if __name__ == "__main__":
    main()
