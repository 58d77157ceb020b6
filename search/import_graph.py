"""Which files of a generation import which: one language-neutral reader, per language only
data (`LanguageSpec.imports`: the statements as regular expressions, the separator of a
target's parts, the leading parts that name no folder).

A target is resolved the way a reader would guess it without the build system: its parts are
matched against the trailing parts of the files' paths without their extensions (`a.b.C` is
`.../a/b/C.java`, `util/coding.h` is `.../util/coding.h` and `.../util/coding.cc`), a
package's own file standing for its folder (`__init__.py`, `index.js`, `mod.rs`); a relative
target (`./x`, `../x`, Python's `.x`) is taken from the importing file's folder. Where no file
matches, a folder does (a Go package, a C# namespace, a Java `a.b.*`): its files. A target that
matches nothing, or too many files to mean one thing, is left out: an import of a library
outside the repository says nothing about the repository's files.

Targets are read from the file contents the index keeps, once per file version (a version is
shared by every generation that has it), and the graph is built once per generation.
"""

from __future__ import annotations

import logging
import re
import threading
import zlib
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from functools import cache

from indexing.languages import LanguageSpec, language_named
from indexing.lexical import Generation, GenerationCache
from indexing.models import FileVersion
from search.file_map import FileMap

logger = logging.getLogger(__name__)

# A file that stands for its folder when the folder is imported.
PACKAGE_STEMS = frozenset({"__init__", "index", "mod", "init", "lib", "main", "package"})
MAX_FILE_MATCHES = 4  # more files of one name than this: the target is too vague to use
MAX_FOLDER_FILES = 40  # a folder of more files than this is not one module
MAX_TARGETS = 200  # per file: a generated file of thousands of includes is read no further
_READ_LIMIT = 256 * 1024  # imports sit near the top; a huge generated file is read that far


@dataclass(frozen=True)
class Target:
    parts: tuple[str, ...]  # normalised (`_normal`), the separator split out
    up: int = -1  # relative: how many folders up from the importing file's; -1: not relative


@dataclass
class ImportGraph:
    imports: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    imported_by: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    def add(self, importer: int, imported: int) -> None:
        if importer != imported:
            self.imports[importer].add(imported)
            self.imported_by[imported].add(importer)


def _normal(part: str) -> str:
    # Case and word joints differ between a module's name and its file's (Elixir's
    # `MyApp.HttpClient` lives in `my_app/http_client.ex`).
    return part.lower().replace("_", "").replace("-", "")


@cache
def _patterns(spec: LanguageSpec) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.MULTILINE) for p in spec.imports)


def read_targets(spec: LanguageSpec, text: str) -> list[Target]:
    """The import targets a file of this language names, in order, without repeats."""
    found: dict[Target, None] = {}
    for pattern in _patterns(spec):
        for match in pattern.finditer(text):
            module = match.group(1) or ""
            names = match.group(2) if pattern.groups > 1 else None
            written = [module] if module else []
            if names:
                names = re.sub(r"\s+as\s+\w+", "", names)
                written += [
                    _join(spec, module, n) for n in re.split(r"[,\s]+", names) if n.isidentifier()
                ]
            for target in written:
                found.setdefault(_target(spec, target))
            if len(found) >= MAX_TARGETS:
                break
    return [t for t in found if t.parts][:MAX_TARGETS]


def _join(spec: LanguageSpec, module: str, name: str) -> str:
    if not module or module.endswith(spec.import_separator):
        return module + name
    return module + spec.import_separator + name


def _target(spec: LanguageSpec, written: str) -> Target:
    separator = spec.import_separator
    up = -1
    if separator == ".":
        # Python's `from ..a import b`: each dot past the first is a folder up.
        stripped = written.lstrip(".")
        if len(stripped) != len(written):
            up = len(written) - len(stripped) - 1
        raw = [p for p in stripped.replace("/", ".").split(".") if p]
    else:
        text = written.replace("\\", "/") if separator != "::" else written.replace("::", "/")
        if text.startswith(("./", "../")):
            up = 0
        raw = [p for p in text.split("/") if p and "$" not in p]
        if raw and "/" in text and "." in raw[-1]:
            raw[-1] = raw[-1].rsplit(".", 1)[0]  # `util/coding.h`, `./foo.js`: the stem
    parts: list[str] = []
    for part in raw:
        if part == ".":
            continue
        if part == "..":
            if parts:
                parts.pop()
            else:
                up = max(up, 0) + 1
            continue
        parts.append(part)
    while parts and parts[0] in spec.import_roots:
        parts.pop(0)
    return Target(tuple(_normal(p) for p in parts if p), up)


class _Resolver:
    """Target parts to files: every trailing run of a path's parts (without the extension)
    names the file; every trailing run of a folder's parts names the folder's files."""

    def __init__(self, paths: dict[int, str]) -> None:
        self.files: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self.exact: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self.folders: dict[tuple[str, ...], list[int]] = defaultdict(list)
        folder_files: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for index, path in paths.items():
            *folders, name = path.split("/")
            folder = tuple(_normal(f) for f in folders)
            stem = _normal(name.split(".", 1)[0] if not name.startswith(".") else name)
            keys = [(*folder, stem)]
            if stem in PACKAGE_STEMS and folder:
                keys.append(folder)
            for key in keys:
                self.exact[key].append(index)
                for start in range(len(key)):
                    self.files[key[start:]].append(index)
            folder_files[folder].append(index)
        for folder, indexes in folder_files.items():
            for start in range(len(folder)):
                self.folders[folder[start:]].extend(indexes)

    def resolve(self, importer: str, target: Target) -> list[int]:
        parts = target.parts
        if target.up >= 0:
            base = tuple(_normal(f) for f in importer.split("/")[:-1])
            if target.up:
                base = base[: -target.up] if target.up <= len(base) else ()
            for key in (base + parts, base + parts[:-1]):
                if key and (found := self.exact.get(key)):
                    return found[:MAX_FILE_MATCHES]
        # The longest trailing run of the target that names something: a module path's
        # leading parts (`github.com/org/repo/`, `com.example.`) are not in the tree.
        shortest = min(2, len(parts))
        for end in (len(parts), len(parts) - 1):  # the last part may be a name inside a module
            for start in range(0, end - shortest + 1):
                key = parts[start:end]
                if not key:
                    break
                found = self.files.get(key)
                if found:
                    return found if len(found) <= MAX_FILE_MATCHES else []
                found = self.folders.get(key)
                if found:
                    return found if len(found) <= MAX_FOLDER_FILES else []
        return []


_graphs: GenerationCache[ImportGraph] = GenerationCache()
_targets: OrderedDict[tuple[str, str, str], list[Target]] = OrderedDict()
_targets_lock = threading.Lock()
CACHED_VERSIONS = 60_000


def import_graph(run: Generation, files: FileMap) -> ImportGraph:
    """The generation's import graph over `files`' indexes (built on first use, then kept)."""
    return _graphs.get(run, lambda key: build_graph(run, files))


def build_graph(run: Generation, files: FileMap) -> ImportGraph:
    versions = [
        (pk, path, sha)
        for pk, path, sha in run.file_versions.values_list("pk", "path", "sha256")
        if path in files.index_of_path
    ]
    targets: dict[str, list[Target]] = {}
    missing: dict[int, tuple[str, str, str]] = {}  # version id -> its cache key
    with _targets_lock:
        for pk, path, sha in versions:
            key = (path, sha, files.languages[files.index_of_path[path]])
            if key in _targets:
                _targets.move_to_end(key)
                targets[path] = _targets[key]
            else:
                missing[pk] = key
    pks = list(missing)
    for start in range(0, len(pks), 500):
        chunk = pks[start : start + 500]
        rows = FileVersion.objects.filter(pk__in=chunk).values_list("pk", "content")
        for pk, content in rows:
            key = missing[pk]
            targets[key[0]] = found = _read(key[0], key[2], content)
            with _targets_lock:
                _targets[key] = found
                while len(_targets) > CACHED_VERSIONS:
                    _targets.popitem(last=False)
    # Only code is imported: a folder's README or build file is not what its name means.
    resolver = _Resolver(
        {n: path for n, path in enumerate(files.paths) if _has_imports(files.languages[n])}
    )
    graph = ImportGraph()
    for path, found in targets.items():
        importer = files.index_of_path[path]
        for target in found:
            for imported in resolver.resolve(path, target):
                graph.add(importer, imported)
    return graph


@cache
def _has_imports(language: str) -> bool:
    spec = language_named(language)
    return spec is not None and bool(spec.imports)


def _read(path: str, language: str, content) -> list[Target]:
    spec = language_named(language)
    if spec is None or not spec.imports or not content:
        return []
    try:
        data = zlib.decompressobj().decompress(bytes(content), _READ_LIMIT)
    except zlib.error as exc:
        # Its units still search; only what it imports is unknown.
        logger.warning("the kept copy of %s is damaged, its imports are not read: %s", path, exc)
        return []
    return read_targets(spec, data.decode("utf-8", errors="replace"))
