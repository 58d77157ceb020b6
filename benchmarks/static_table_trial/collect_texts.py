# ruff: noqa  (a trial's scripts, kept in the commit that held them; see docs/eval/static-table-tokenlearn.json)
"""Collect the training texts for the tokenlearn table (run with RepoRift's venv, cwd /work/main).

Sources (only these):
  1. the 24 train corpora of benchmarks/questions/languages/train-corpora.json, fetched into
     /work/tokenlearn/corpora by `python -m benchmarks.corpora fetch --manifest ... --into ...`;
     files walked with RepoRift's own file selection, code-language files only;
  2. the Python code of the 18 ranker TRAIN packages (benchmarks.package_benchmark.TRAIN_PACKAGES),
     as installed in RepoRift's venv; .py/.pyi files only, vendored folders skipped;
  3. the query text of the CoSQA train pairs ("query" field; the file has no "doc" field) (/work/shared/data/cosqa/cosqa-train-pairs.json).

Files are split into units with indexing.parsing.parse_source; each unit's code[:3000] is a text.
Code texts are sampled evenly across packages to at most TARGET in total (a per-package cap found
by water-filling), deterministic (seeded).

Writes /work/tokenlearn/texts.jsonl: {"source", "package", "language", "text"} per line.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, "/work/main")

from benchmarks.package_benchmark import DEV_PACKAGES, TRAIN_PACKAGES
from indexing.file_selection import iter_source_files, language_for_path
from indexing.parsing import parse_source
from search.evaluation.corpus_manifest import corpus_root, read_manifest
from search.evaluation.questions import package_root

OUT = Path("/work/tokenlearn/texts.jsonl")
CORPORA = Path("/work/tokenlearn/corpora")
MANIFEST = Path("/work/main/benchmarks/questions/languages/train-corpora.json")
COSQA_TRAIN = Path("/work/shared/data/cosqa/cosqa-train-pairs.json")
TARGET = 40_000
MAX_FILE_BYTES = 2 * 1024 * 1024
MIN_CHARS = 20  # units shorter than this (a lone `}` block) say nothing
SEED = 0
VENDORED = {"_vendor", "vendor", "vendored", "_vendored", "third_party", "_distutils"}


def units_of(root: Path, *, python_only: bool) -> tuple[list[str], str]:
    warnings: list[str] = []
    texts: list[str] = []
    languages: Counter[str] = Counter()
    for entry in iter_source_files(root, max_file_bytes=MAX_FILE_BYTES, warnings=warnings):
        parts = entry.path.split("/")
        if python_only:
            if not entry.path.endswith((".py", ".pyi")) or VENDORED & set(parts[:-1]):
                continue
        data = entry.absolute.read_bytes()
        if language_for_path(entry.path, data[:8192]) is None:
            continue  # documentation / configuration: not code
        parsed = parse_source(data, path=entry.path)
        for unit in parsed.units:
            text = unit.code[:3000]
            if len(text.strip()) >= MIN_CHARS:
                texts.append(text)
                languages[parsed.language] += 1
    return texts, languages.most_common(1)[0][0] if languages else ""


def main() -> None:
    assert not set(TRAIN_PACKAGES) & set(DEV_PACKAGES)
    per_package: dict[str, tuple[str, str, list[str]]] = {}  # name -> (source, language, texts)
    for name, entry in read_manifest(MANIFEST).items():
        root = corpus_root(entry, CORPORA)  # checks the fingerprint against the manifest
        texts, _ = units_of(root, python_only=False)
        per_package[f"corpus:{name}"] = ("train-corpus", entry.language, texts)
        print(f"corpus {name:16s} {entry.language:11s} {len(texts):6d} units", flush=True)
    for name in TRAIN_PACKAGES:
        root = package_root(name)
        assert "/work/main/.venv/" in str(root), root
        texts, _ = units_of(root, python_only=True)
        per_package[f"python:{name}"] = ("python-train-package", "python", texts)
        print(f"python {name:16s} {len(texts):6d} units ({root})", flush=True)

    # Even sampling: one cap c for all packages with sum(min(n_i, c)) <= TARGET.
    sizes = {k: len(v[2]) for k, v in per_package.items()}
    lo, hi = 0, max(sizes.values())
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in sizes.values()) <= TARGET:
            lo = mid
        else:
            hi = mid - 1
    cap = lo
    rng = random.Random(SEED)
    rows = []
    for key, (source, language, texts) in per_package.items():
        unique = list(dict.fromkeys(texts))
        chosen = unique if len(unique) <= cap else rng.sample(unique, cap)
        for text in chosen:
            rows.append(
                {
                    "source": source,
                    "package": key.split(":", 1)[1],
                    "language": language,
                    "text": text,
                }
            )
    print(f"per-package cap {cap}; code texts {len(rows)}", flush=True)

    pairs = json.loads(COSQA_TRAIN.read_text())
    queries = list(dict.fromkeys(p["query"].strip() for p in pairs if p.get("query", "").strip()))
    for q in queries:
        rows.append({"source": "cosqa-train", "package": "cosqa", "language": "english", "text": q})
    print(f"cosqa train pairs {len(pairs)}, distinct queries {len(queries)}", flush=True)

    with OUT.open("w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    counts = Counter((r["source"], r["package"], r["language"]) for r in rows)
    summary = {
        "cap": cap,
        "total": len(rows),
        "by_source": dict(Counter(r["source"] for r in rows)),
        "by_language": dict(Counter(r["language"] for r in rows)),
        "available_units": sizes,
        "by_package": {f"{s}:{p}:{lang}": n for (s, p, lang), n in sorted(counts.items())},
    }
    Path("/work/tokenlearn/texts-summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary["by_source"]), json.dumps(summary["by_language"]))


if __name__ == "__main__":
    main()
