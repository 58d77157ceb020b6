"""The `questions` format: developer questions over installed packages (benchmarks/questions/).

Each row names an installed package, the version it was written against, a kind (symbol,
behaviour, architecture) and targets: files, units (resolved to their lines here, with `ast`,
so that scoring is by overlap and does not depend on how our parser cuts units) and line spans.
The corpus of a package is its installed directory, indexed as it is (docstrings kept: these are
questions about real code, not docstring sentences).

A row with a `language` is about a corpus of another language instead: `package` names an
entry of the manifest beside the rows (search.evaluation.corpus_manifest), paths are relative
to that corpus's root, and targets are files or line spans.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
from functools import cache
from importlib import metadata
from pathlib import Path

from search.evaluation.corpus_manifest import (
    CorpusEntry,
    corpora_dir,
    corpus_root,
    find_manifest,
    read_manifest,
)
from search.evaluation.dataset_types import (
    Corpus,
    DatasetError,
    EvalDataset,
    EvalQuery,
    GoldUnit,
    read_jsonl,
    require,
)

QUESTION_KINDS = ("symbol", "behaviour", "architecture")
PARTS = ("tune", "final", "all")
SECONDARY_RELEVANCE = 0.5
# Import names whose distribution is named otherwise (the benchmarks' packages too).
DISTRIBUTIONS = {
    "_pytest": "pytest",
    "fontTools": "fonttools",
    "grpc": "grpcio",
    "attr": "attrs",
    "opentelemetry": "opentelemetry-api",
}


def part_of(query_id: str) -> str:
    """The held-apart fifth: rows whose id hashes to a last hex digit below 3."""
    return "final" if hashlib.sha256(query_id.encode()).hexdigest()[-1] in "012" else "tune"


def package_root(package: str) -> Path:
    """The installed package's directory (the corpus), refused if it is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    # kombu replaces its module object in sys.modules with one that has no spec once imported
    # (the Celery app imports it): ask the module itself.
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        raise DatasetError(f"package {package!r} is not installed") from exc
    location = getattr(module, "__file__", None)
    if location and Path(location).name == "__init__.py":
        return Path(location).parent.resolve()
    raise DatasetError(f"package {package!r} is not installed as a package")


def installed_version(package: str) -> str:
    try:
        return metadata.version(DISTRIBUTIONS.get(package, package))
    except metadata.PackageNotFoundError as exc:
        raise DatasetError(f"package {package!r} has no installed distribution") from exc


def load_questions(
    path: Path, *, part: str = "tune", corpora: str | Path | None = None
) -> EvalDataset:
    """A file of rows, or a directory of `*.jsonl` files. `corpora`: where the other-language
    corpora are unpacked (REPORIFT_CORPORA, else var/corpora)."""
    if part not in PARTS:
        raise DatasetError(f"part must be one of {', '.join(PARTS)}")
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise DatasetError(f"{path}: no .jsonl files")
    corpora_found: dict[str, Corpus] = {}
    queries: list[EvalQuery] = []
    seen: set[str] = set()
    manifests: dict[Path, dict[str, CorpusEntry]] = {}
    for file in files:
        for number, row in read_jsonl(file):
            where = f"{file}:{number}"
            if "language" in row:
                manifest = find_manifest(file)
                if manifest not in manifests:
                    manifests[manifest] = read_manifest(manifest)
                query, root = _language_row(row, where, manifests[manifest], corpora_dir(corpora))
            else:
                query = _row(row, where)
                root = package_root(query.corpus)
            if query.query_id in seen:
                raise DatasetError(f"{where}: id {query.query_id!r} is used twice")
            seen.add(query.query_id)
            corpora_found.setdefault(
                query.corpus, Corpus(key=query.corpus, kind="repo", source=str(root))
            )
            if part in ("all", part_of(query.query_id)):
                queries.append(query)
    if not queries:
        raise DatasetError(f"{path}: no rows in part {part!r}")
    name = path.stem if path.is_file() else path.name
    return EvalDataset(f"{name}-{part}", "questions", corpora_found, queries)


def _language_row(
    row: dict, where: str, entries: dict[str, CorpusEntry], corpora: Path
) -> tuple[EvalQuery, Path]:
    query_id = require(row, "id", where)
    name = require(row, "package", where)
    version = require(row, "version", where)
    language = require(row, "language", where)
    kind = require(row, "kind", where)
    text = require(row, "query", where)
    if kind not in QUESTION_KINDS:
        raise DatasetError(f"{where}: kind must be one of {', '.join(QUESTION_KINDS)}")
    entry = entries.get(name)
    if entry is None:
        raise DatasetError(f"{where}: corpus {name!r} is not in the manifest")
    if (entry.version, entry.language) != (version, language):
        # Paths and line numbers were read off that version.
        raise DatasetError(
            f"{where}: written against {name} {version} ({language}); the manifest has "
            f"{entry.version} ({entry.language})"
        )
    root = corpus_root(entry, corpora)
    targets = []
    for key, primary in (("primary", True), ("secondary", False)):
        items = require(row, key, where, list) if primary else row.get(key) or []
        for item in items:
            if isinstance(item, dict) and "qualname" in item:
                raise DatasetError(
                    f"{where}: a {language} target is a file or 'lines', no qualname"
                )
            targets.append(_target(item, root, "", where, primary=primary))
    if not any(t.primary for t in targets):
        raise DatasetError(f"{where}: 'primary' is empty")
    return EvalQuery(query_id, text, name, targets, kind=kind, language=language), root


def _row(row: dict, where: str) -> EvalQuery:
    query_id = require(row, "id", where)
    package = require(row, "package", where)
    version = require(row, "version", where)
    kind = require(row, "kind", where)
    text = require(row, "query", where)
    if kind not in QUESTION_KINDS:
        raise DatasetError(f"{where}: kind must be one of {', '.join(QUESTION_KINDS)}")
    installed = installed_version(package)
    if installed != version:
        # Paths and line numbers were read off that version; another may have moved them.
        raise DatasetError(f"{where}: written against {package} {version}, {installed} installed")
    root = package_root(package)
    targets = [
        _target(item, root, package, where, primary=True)
        for item in require(row, "primary", where, list)
    ] + [_target(item, root, package, where, primary=False) for item in row.get("secondary") or []]
    if not any(t.primary for t in targets):
        raise DatasetError(f"{where}: 'primary' is empty")
    return EvalQuery(query_id, text, package, targets, kind=kind)


def _target(item: object, root: Path, package: str, where: str, *, primary: bool) -> GoldUnit:
    if not isinstance(item, dict) or not isinstance(item.get("path"), str):
        raise DatasetError(f"{where}: each target needs a 'path'")
    written = item["path"]
    if package and not written.startswith(f"{package}/"):
        raise DatasetError(f"{where}: target path {written!r} is not under {package}/")
    # The corpus is the package directory (a language corpus's paths are relative to its root).
    relative = written.removeprefix(f"{package}/") if package else written
    file = root / relative
    if not file.is_file() or not file.resolve().is_relative_to(root):
        raise DatasetError(f"{where}: {written} does not exist in the corpus {root}")
    relevance = 1.0 if primary else SECONDARY_RELEVANCE
    qualname, lines = item.get("qualname"), item.get("lines")
    if qualname is not None:
        span = definition_lines(file).get(qualname)
        if span is None:
            raise DatasetError(f"{where}: {written} defines no {qualname!r}")
        return GoldUnit(relative, qualname, relevance, lines=span, primary=primary)
    if lines is not None:
        total = len(file.read_text(encoding="utf-8", errors="replace").splitlines())
        valid = (
            isinstance(lines, list)
            and len(lines) == 2
            and all(isinstance(n, int) for n in lines)
            and 1 <= lines[0] <= lines[1] <= total
        )
        if not valid:
            raise DatasetError(f"{where}: 'lines' of {written} must be [start, end] in 1..{total}")
        return GoldUnit(relative, "", relevance, lines=(lines[0], lines[1]), primary=primary)
    return GoldUnit(relative, "", relevance, primary=primary)


@cache
def definition_lines(file: Path) -> dict[str, tuple[int, int]]:
    """Every class and function of a file by qualname, with its lines (decorators included)."""
    tree = ast.parse(file.read_bytes())
    found: dict[str, tuple[int, int]] = {}
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{scope}.{child.name}" if scope else child.name
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                # The first definition of a name wins (an `@overload` stub comes first; its
                # implementation is folded with it into one unit).
                if qualname in found:
                    first = found[qualname]
                    found[qualname] = (first[0], max(first[1], child.end_lineno or child.lineno))
                else:
                    found[qualname] = (start, child.end_lineno or child.lineno)
                stack.append((child, qualname))
            elif not isinstance(child, ast.expr):
                stack.append((child, scope))  # definitions under if/try/with
    return found
