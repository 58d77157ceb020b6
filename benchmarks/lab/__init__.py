"""The ranking lab: offline, exact experiments on the dev sets that chose fast mode's design.

Everything here reuses the product's parser, field texts, embedder, vector cache, lexical
tokeniser, features and metrics; only the nearest-neighbour search is done exactly in numpy
instead of through the vector store. The figures that decide defaults are then re-measured
through the product with `manage.py evaluate` (docs/BENCHMARKS.md).
"""
