"""Time to first answer: from adding a repository to its first search result, semble's beside it;
and, for a tree of mixed languages, what each indexing phase costs a unit of each language.

Each tree is measured in a cold process on a fresh data dir: `load_s` (not counted) loads what a
server holds before anyone adds a repository (`--models`: prepared ONNX graphs and static table);
from t0 the repository is indexed as `index_repo` does it and fast mode asked until it answers
(`time_to_first_answer_s`, and its CPU time, which other load moves less), then phase 2 waited
for (`time_to_full_s`). semble (`--semble-python`) runs in its own venv, offline, on a fresh
cache, with a model2vec folder (`benchmarks.semble_questions table`), reading every file of
every language it reads (`--semble-python-only`: `.py` files only, as the first trees, Python
packages, were measured).

    python -m benchmarks.time_to_answer --trees DIR[,DIR...] --out report.json \
        [--semble-python /work/semble-venv/bin/python --semble-model /work/semble-model]
    python -m benchmarks.time_to_answer mixed --tree var/scale-mixed \
        --python rich celery kombu websockets jinja2 urllib3 _pytest
    python -m benchmarks.time_to_answer phases --tree var/scale-mixed --out PHASES.json

`mixed` copies the nine other-language corpora and the named packages side by side; `phases`
times per language parsing, phase 1 over every unit and phase 2 over the first `--sample`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.common import OFFLINE, ROOT, machine_line, short_commit

QUERY = "parse the configuration"
POLL_S = 0.2


def product_child(
    tree: Path, out: Path, query: str, timeout_s: float, full_max_units: int = 0
) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections
    from django.utils.text import slugify

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    migrate_s = time.perf_counter() - started

    started = time.perf_counter()
    from indexing.embedding import get_embedder
    from indexing.static_tier import get_static_embedder
    from indexing.store import get_vector_store
    from search.ranking.model import get_ranker

    get_embedder().embed(["warm"])
    static = get_static_embedder()
    get_vector_store()
    get_ranker()  # a server's warm-up loads it (search.warmup)
    load_s = time.perf_counter() - started

    t0, cpu0 = time.perf_counter(), time.process_time()
    from indexing.models import CodeUnit, IndexRun
    from indexing.services import index_run_execute, index_run_start, repository_create
    from search.services import search

    repository = repository_create(name=slugify(f"tta-{tree.name}")[:100], source=str(tree))
    run = index_run_start(repository=repository, enqueue=False)
    if run.status == IndexRun.Status.QUEUED:  # phase 2 goes on in a thread
        run = index_run_execute(run=run, phase2="background")
    while not run.is_finished and time.perf_counter() - t0 < timeout_s:
        time.sleep(POLL_S)
        run.refresh_from_db()
    if run.status != IndexRun.Status.SUCCEEDED:
        raise SystemExit(f"{tree}: index run {run.pk} is {run.status}: {run.error}")
    indexed_s = time.perf_counter() - t0
    while True:  # the first search that answers
        repository.refresh_from_db()
        asked = time.perf_counter()
        response = search(repository=repository, query=query, k=10, mode="fast")
        t1 = time.perf_counter()
        if response.results or t1 - t0 > timeout_s:
            break
        time.sleep(0.1)
    if not response.results:
        raise SystemExit(f"{tree}: no result for {query!r} after {timeout_s} s")
    cpu_s = time.process_time() - cpu0
    first_ms, top = (t1 - asked) * 1000, response.results[0]
    asked = time.perf_counter()  # again: what of the first search was its being the first
    search(repository=repository, query=query, k=10, mode="fast")
    second_ms = (time.perf_counter() - asked) * 1000
    active = IndexRun.objects.get(pk=repository.active_run_id)
    units = CodeUnit.objects.filter(file_version__runs=active.pk).count()
    row: dict[str, Any] = {
        "tree": str(tree),
        "units": units,
        "files": active.files_total,
        "migrate_s": round(migrate_s, 2),
        "load_s": round(load_s, 2),
        "static_tier": None if static is None else static.model_id,
        "indexed_s": round(indexed_s, 2),
        "time_to_first_answer_s": round(t1 - t0, 2),
        "cpu_to_first_answer_s": round(cpu_s, 2),
        "first_query_ms": round(first_ms, 1),
        "second_query_ms": round(second_ms, 1),
        "first_mode": response.mode_used,
        "first_top": f"{top.unit.path}:{top.unit.qualname}",
        "first_model": active.embedder_model,
        "time_to_full_s": None,  # not waited for above full_max_units
    }
    if not full_max_units or units <= full_max_units:
        # Phase 2 may run in a thread of this process: every read goes to the database.
        unfinished = ("pending", "running")
        while active.phase2_status in unfinished and time.perf_counter() - t0 < timeout_s:
            time.sleep(POLL_S)
            active.refresh_from_db(fields=["phase2_status"])
        full = time.perf_counter()
        search(repository=repository, query=query, k=10, mode="fast")
        row |= {
            "full_status": active.phase2_status,
            "time_to_full_s": None if active.phase2_status in unfinished else round(full - t0, 2),
            "full_query_ms": round((time.perf_counter() - full) * 1000, 1),
        }
    connections.close_all()
    out.write_text(json.dumps(row))
    # A phase 2 not waited for is still embedding in a thread: leave without tearing down the
    # interpreter under it (onnxruntime aborts the process when it is torn down mid-run).
    os._exit(0)


# --- in semble's environment -----------------------------------------------------------------


def semble_child(tree: Path, model: Path, out: Path, query: str, python_only: bool) -> None:
    import semble
    from semble.index.dense import load_model

    from benchmarks.semble_questions import PYTHON, build_index

    model_dir = str(model.resolve())
    with tempfile.TemporaryDirectory(prefix="semble-cache-") as cache:
        os.environ["SEMBLE_CACHE_LOCATION"] = cache
        started = time.perf_counter()
        load_model(model_dir)  # semble caches it by path: the build below reuses it
        load_s = time.perf_counter() - started
        index, index_s = build_index(tree, model_dir, PYTHON if python_only else None)
        started = time.perf_counter()
        results = index.search(query, top_k=10)
        query_ms = (time.perf_counter() - started) * 1000
    top = results[0].chunk if results else None
    row = {
        "semble_version": semble.__version__,
        "semble_load_s": round(load_s, 2),
        "semble_files": index.stats.indexed_files,
        "semble_chunks": index.stats.total_chunks,
        "semble_index_s": round(index_s, 2),
        "semble_query_ms": round(query_ms, 1),
        "semble_time_to_first_answer_s": round(index_s + query_ms / 1000, 2),
        "semble_reads": "python" if python_only else "every language",
        "semble_top": f"{top.file_path}:{top.start_line}-{top.end_line}" if top else None,
    }
    out.write_text(json.dumps(row))
    os._exit(0)


# --- a tree of mixed languages, phase by phase ----------------------------------------------


FAMILIES = {
    language: family
    for family, languages in (
        ("Python", ("python",)),
        ("JavaScript/TypeScript", ("javascript", "typescript", "tsx")),
        ("Go/Rust/C", ("go", "rust", "c", "cpp")),
        ("Ruby/PHP/Lua/Bash", ("ruby", "php", "lua", "bash")),
    )
    for language in languages
}
TEXT_FAMILY = "docs and configuration"


def build(tree: Path, python: list[str], corpora: str | None) -> dict[str, Any]:
    """The nine corpora's roots and the named installed packages, copied side by side
    (symlinks kept as links: indexing never follows them)."""
    from search.evaluation.corpus_manifest import corpora_dir, corpus_root, read_manifest
    from search.evaluation.questions import package_root

    manifest = read_manifest(ROOT / "benchmarks" / "questions" / "languages" / "corpora.json")
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    parts = {}
    for name, entry in manifest.items():
        source = corpus_root(entry, corpora_dir(corpora))
        shutil.copytree(source, tree / name, symlinks=True)
        parts[name] = str(source)
    for package in python:
        source = package_root(package)
        shutil.copytree(
            source, tree / "python" / package, symlinks=True, ignore=shutil.ignore_patterns("*.pyc")
        )
        parts[f"python/{package}"] = str(source)
    return parts


class _Located:
    """A parsed unit with its file's path, as unit_text.UnitParts reads it."""

    def __init__(self, unit: Any, path: str) -> None:
        self._unit, self.path = unit, path

    def __getattr__(self, name: str) -> Any:
        return getattr(self._unit, name)


def _timed(function, *args, **kwargs) -> tuple[Any, float]:
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def phases(tree: Path, *, sample: int) -> dict[str, Any]:
    import django

    django.setup()
    from django.conf import settings

    from indexing.embedding import get_embedder
    from indexing.file_selection import (
        SNIFF_BYTES,
        iter_source_files,
        kind_for_path,
        language_for_path,
    )
    from indexing.parsing import parse_source
    from indexing.static_tier import get_static_embedder
    from indexing.unit_text import field_texts

    warnings: list[str] = []
    files_by_language: dict[str, list[Path]] = defaultdict(list)
    code: dict[str, bool] = {}
    for entry in iter_source_files(
        tree, max_file_bytes=settings.REPORIFT["MAX_FILE_BYTES"], warnings=warnings
    ):
        # An extensionless script says its language on its first lines, as indexing reads it.
        with open(tree / entry.path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
        language = kind_for_path(entry.path, head) or "other"
        files_by_language[language].append(tree / entry.path)
        code[language] = language_for_path(entry.path, head) is not None
    static, transformer = get_static_embedder(), get_embedder()
    transformer.embed(["warm"])
    if static is not None:
        static.embed(["warm"])
    rows = {}
    for language, files in sorted(files_by_language.items()):
        units, parse_s, read_bytes = [], 0.0, 0
        for file in files:
            source = file.read_bytes()
            read_bytes += len(source)
            path = file.relative_to(tree).as_posix()
            parsed, seconds = _timed(parse_source, source, path=path)
            parse_s += seconds
            # What the pipeline embeds: the parsed unit with its file's path (unit_text reads it).
            units.extend(_Located(unit, path) for unit in parsed.units)
        if not units:
            continue
        texts = field_texts(units)
        n_texts = sum(len(v) for v in texts.values())
        static_s = 0.0
        if static is not None:
            for field_list in texts.values():
                static_s += _timed(static.embed, field_list)[1]
        picked = {field: values[:sample] for field, values in texts.items()}
        transformer_s = sum(_timed(transformer.embed, values)[1] for values in picked.values())
        sampled = len(picked["code"])
        rows[language] = {
            "family": FAMILIES.get(language, "other code") if code[language] else TEXT_FAMILY,
            "files": len(files),
            "bytes": read_bytes,
            "units": len(units),
            "fields_per_unit": round(n_texts / len(units), 2),
            "mean_code_chars": round(sum(map(len, texts["code"])) / len(units)),
            "parse_s": round(parse_s, 3),
            "parse_units_per_s": round(len(units) / max(parse_s, 1e-9)),
            "phase1_static_s": round(static_s, 3),
            "phase1_static_units_per_s": round(len(units) / max(static_s, 1e-9)),
            "phase2_sample_units": sampled,
            "phase2_sample_s": round(transformer_s, 2),
            "phase2_units_per_s": round(sampled / max(transformer_s, 1e-9), 1),
        }
        print(f"{language}: {rows[language]}", file=sys.stderr, flush=True)
    return {
        "tree": str(tree),
        "units": sum(r["units"] for r in rows.values()),
        "files": sum(r["files"] for r in rows.values()),
        "static_tier": None if static is None else static.model_id,
        "transformer": transformer.model_id,
        "threads": os.environ.get("REPORIFT_EMBED_THREADS") or "default",
        "selection_warnings": warnings,
        "by_language": rows,
        "by_family": families(rows),
    }


def families(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per family: units, and each phase's units/s over the family's units (phase 2: over the
    sampled units)."""
    out = {}
    for family in sorted({row["family"] for row in rows.values()}):
        members = {language: row for language, row in rows.items() if row["family"] == family}

        def total(key: str, members: dict = members) -> float:
            return sum(row[key] for row in members.values())

        def rate(count: float, seconds: float) -> float:
            return round(count / max(seconds, 1e-9), 1)

        out[family] = {
            "languages": sorted(members),
            "files": total("files"),
            "units": total("units"),
            "parse_units_per_s": rate(total("units"), total("parse_s")),
            "phase1_static_units_per_s": rate(total("units"), total("phase1_static_s")),
            "phase2_units_per_s": rate(total("phase2_sample_units"), total("phase2_sample_s")),
        }
    return out


# --- the driver ----------------------------------------------------------------------------


def fresh_data_dir(*, models: str | Path | None) -> Path:
    """An empty data dir; with `models`, its `models/` is that prepared folder: what an install
    prepares once (the ONNX graphs, the static table) is not part of what is measured."""
    data = Path(tempfile.mkdtemp(prefix="reporift-tta-"))
    if models:
        (data / "models").symlink_to(Path(models).resolve(), target_is_directory=True)
    return data


def child_env(**settings: str) -> dict[str, str]:
    """Nothing of this shell's database, broker, Chroma server or venv, and nothing online."""
    drop = ("VIRTUAL_ENV", "PYTHONHOME", "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")
    env = {k: v for k, v in os.environ.items() if k not in (*drop, "CHROMA_HOST")}
    return env | OFFLINE | settings


def measure_product(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    data = fresh_data_dir(models=args.models)
    env = child_env(REPORIFT_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="reporift.settings")
    result = data / "result.json"
    command = [sys.executable, "-m", "benchmarks.time_to_answer", "_product", str(tree)]
    command += [str(result), args.query, str(args.timeout), str(args.full_max_units)]
    try:
        subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=args.timeout * 2)
        return json.loads(result.read_text())
    finally:
        shutil.rmtree(data, ignore_errors=True)


def measure_semble(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="semble-tta-") as scratch:
        result = Path(scratch) / "result.json"
        command = [str(args.semble_python), "-m", "benchmarks.time_to_answer", "_semble"]
        command += [str(tree), str(args.semble_model), str(result), args.query]
        command += ["python-only" if args.semble_python_only else "all"]
        env = child_env(PYTHONPATH=str(ROOT))
        subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=args.timeout)
        return json.loads(result.read_text())


def mixed_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.time_to_answer")
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("mixed", help="copy the corpora and packages into one tree")
    build_cmd.add_argument("--tree", type=Path, required=True)
    build_cmd.add_argument("--python", nargs="*", default=[], help="installed packages to add")
    build_cmd.add_argument("--corpora", help="where the corpora lie (REPORIFT_CORPORA)")
    phases_cmd = commands.add_parser("phases", help="units/s of each phase, per language")
    phases_cmd.add_argument("--tree", type=Path, required=True)
    phases_cmd.add_argument("--sample", type=int, default=96, help="units per language, phase 2")
    phases_cmd.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "mixed":
        print(json.dumps(build(args.tree.resolve(), args.python, args.corpora), indent=1))
        return 0
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    report = {"machine": machine_line()} | phases(args.tree.resolve(), sample=args.sample)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    for family, row in report["by_family"].items():
        print(f"{family}: {row}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_product"]:
        tree, out, query, timeout, full_max = argv[1:6]
        product_child(Path(tree), Path(out), query, float(timeout), int(full_max))
        return 0
    if argv[:1] == ["_semble"]:
        tree, model, out, query, reads = argv[1:6]
        semble_child(Path(tree), Path(model), Path(out), query, reads == "python-only")
        return 0
    if argv[:1] == ["trees"]:  # trees PACKAGE...: their installed folders, comma-separated
        from search.evaluation.questions import package_root

        print(",".join(str(package_root(name)) for name in argv[1:]))
        return 0
    if argv[:1] in (["mixed"], ["phases"]):
        return mixed_main(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", required=True, help="folders to index, comma-separated")
    parser.add_argument("--out", type=Path, required=True, help="the JSON report to write")
    parser.add_argument("--semble-python", type=Path, help="semble's venv interpreter")
    parser.add_argument("--semble-model", type=Path, help="a model2vec folder for semble")
    parser.add_argument(
        "--semble-python-only", action="store_true", help="semble reads only the .py files"
    )
    parser.add_argument("--models", help="a prepared models folder for every data dir")
    parser.add_argument(
        "--full-max-units", type=int, default=0, help="wait for phase 2 up to this size (0: all)"
    )
    parser.add_argument("--query", default=QUERY)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds, per wait")
    args = parser.parse_args(argv)
    if bool(args.semble_python) != bool(args.semble_model):
        parser.error("--semble-python and --semble-model go together")
    rows = []
    for name in filter(None, args.trees.split(",")):
        tree = Path(name).expanduser().resolve()
        if not tree.is_dir():
            parser.error(f"{tree} is not a folder")
        busy = round(os.getloadavg()[0], 2)  # another job's load slows every figure here
        row = measure_product(tree, args) | {"loadavg_1min_before": busy}
        if args.semble_python:
            row |= measure_semble(tree, args)
            # The product's first answer against semble's (both timed from a loaded process).
            row["ratio_to_semble"] = round(
                row["time_to_first_answer_s"] / max(row["semble_time_to_first_answer_s"], 1e-3), 2
            )
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    git = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True)
    report = {
        "query": args.query,
        "project": {"commit": short_commit(ROOT), "dirty": bool(git.stdout.strip())},
        "trees": rows,
        "machine": machine_line(),
        "cores": os.cpu_count(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, "-m", "benchmarks.time_to_answer", *argv]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
