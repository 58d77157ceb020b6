"""`make bench`: every benchmark, each in its own process, each rewriting its own section of
docs/BENCHMARKS.md."""

from benchmarks.common import run_module

BENCHMARKS = [
    "benchmarks.indexing",
    "benchmarks.search_latency",
    "benchmarks.agents",
    "benchmarks.load",
]

if __name__ == "__main__":
    for module in BENCHMARKS:
        run_module(module)
