"""A repository of mixed languages at scale: build it from the question sets' corpora and some
installed Python packages, and measure, per language and per language family, what each
indexing phase costs a unit.

    python -m benchmarks.language_scale build --tree var/scale-mixed \
        --python rich celery kombu websockets   # the nine corpora + these packages
    python -m benchmarks.language_scale phases --tree var/scale-mixed \
        --out docs/eval/languages-scale-phases.json
    python -m benchmarks.time_to_answer --trees var/scale-mixed --full-max-units 1 \
        --out docs/eval/languages-scale-first-answer.json

`phases` walks the tree as indexing does (indexing.file_selection) and, per language, times:
parsing (`parse_source`, units/s), phase 1's embedding of every unit's fields with the static
tier, and phase 2's with the transformer over a sample of each language's units (the first
`--sample` in walk order; phase 2 costs a unit far more than anything else, and its cost per
unit depends on how long the language's units are). Each is measured in this one process,
one language after another, so that the figures are comparable with each other; the first
answer after `index` (the target: 20 s) is time_to_answer's, on the same tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = {
    "python": "Python",
    "javascript": "JavaScript/TypeScript",
    "typescript": "JavaScript/TypeScript",
    "tsx": "JavaScript/TypeScript",
    "go": "Go/Rust/C",
    "rust": "Go/Rust/C",
    "c": "Go/Rust/C",
    "cpp": "Go/Rust/C",
    "ruby": "Ruby/PHP/Lua/Bash",
    "php": "Ruby/PHP/Lua/Bash",
    "lua": "Ruby/PHP/Lua/Bash",
    "bash": "Ruby/PHP/Lua/Bash",
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
    from indexing.file_selection import SNIFF_BYTES, kind_for_path, language_for_path
    from indexing.parsing import parse_source
    from indexing.static_tier import get_static_embedder
    from indexing.unit_text import field_texts

    warnings: list[str] = []
    from indexing.file_selection import iter_source_files

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
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    names: dict[str, list[str]] = defaultdict(list)
    for language, row in rows.items():
        grouped[row["family"]].append(row)
        names[row["family"]].append(language)
    out = {}
    for family, members in sorted(grouped.items()):
        units = sum(r["units"] for r in members)
        sampled = sum(r["phase2_sample_units"] for r in members)

        def rate(count: int, seconds: float) -> float:
            return round(count / max(seconds, 1e-9), 1)

        out[family] = {
            "languages": sorted(names[family]),
            "files": sum(r["files"] for r in members),
            "units": units,
            "parse_units_per_s": rate(units, sum(r["parse_s"] for r in members)),
            "phase1_static_units_per_s": rate(units, sum(r["phase1_static_s"] for r in members)),
            "phase2_units_per_s": rate(sampled, sum(r["phase2_sample_s"] for r in members)),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="copy the corpora and packages into one tree")
    build_cmd.add_argument("--tree", type=Path, required=True)
    build_cmd.add_argument("--python", nargs="*", default=[], help="installed packages to add")
    build_cmd.add_argument("--corpora", help="where the corpora lie (REPORIFT_CORPORA)")
    phases_cmd = commands.add_parser("phases", help="units/s of each phase, per language")
    phases_cmd.add_argument("--tree", type=Path, required=True)
    phases_cmd.add_argument("--sample", type=int, default=96, help="units per language, phase 2")
    phases_cmd.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "build":
        parts = build(args.tree.resolve(), args.python, args.corpora)
        print(json.dumps(parts, indent=1))
        return 0
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    from benchmarks.common import machine_line

    report = {"machine": machine_line()} | phases(args.tree.resolve(), sample=args.sample)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    for family, row in report["by_family"].items():
        print(f"{family}: {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
