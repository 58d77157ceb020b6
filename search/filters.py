"""Search filters and the test-path rule: pure functions of a unit's path, kind and language,
shared by search, its features and the evaluation lab."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import lru_cache

from indexing.unit_text import file_suffix, folders


@dataclass(frozen=True)
class SearchFilters:
    path: str = ""  # a prefix ("pkg/sub/") or a glob ("*/models.py")
    kinds: tuple[str, ...] = ()
    exclude_tests: bool = False
    languages: tuple[str, ...] = ()  # CodeUnit.language values ("go", "markdown"...)

    @property
    def active(self) -> bool:
        return bool(self.path or self.kinds or self.exclude_tests or self.languages)

    def allows(self, path: str, kind: str, language: str = "python") -> bool:
        if self.kinds and kind not in self.kinds:
            return False
        if self.languages and language not in self.languages:
            return False
        if self.exclude_tests and is_test_path(path):
            return False
        if self.path:
            if any(c in self.path for c in "*?["):
                return fnmatch.fnmatchcase(path, self.path)
            return path.startswith(self.path.lstrip("/"))
        return True


# Folders that hold tests, in the conventions of the languages RepoRift reads (`__tests__` for
# Jest, `spec` for RSpec and Jasmine, `src/test` for Maven and Gradle).
_PYTHON_TEST_DIRS = frozenset({"test", "tests", "testing"})
_TEST_DIRS = _PYTHON_TEST_DIRS | {"__tests__", "spec", "specs", "acceptance", "e2e"}
# Test files by name: `test_x.py`, `x_test.py`, `x_test.go`, `x.test.ts`, `x.spec.js`,
# `x_spec.rb`, `XTest.java`, `XTests.cs`, `XSpec.scala`, `x_test.exs`, `test_x.c`...
_TEST_NAME = re.compile(
    r"^(test_|tests?[-.])"
    r"|(_test|_tests|_spec|\.test|\.spec|-test|-spec)\.[^.]+$"
    r"|^[A-Z]\w*(Test|Tests|Spec|Specs|IT)\.(java|kt|kts|scala|cs|swift|groovy)$"
    r"|^Test[A-Z]\w*\.(java|kt|cs|swift)$"
)
_TEST_FILES = frozenset({"conftest.py", "spec_helper.rb", "rails_helper.rb", "test_helper.exs"})


@lru_cache(maxsize=65536)
def is_test_path(path: str) -> bool:
    # Asked of every candidate of every search (a ranker feature): a repository's paths repeat.
    name = path.rsplit("/", 1)[-1]
    if file_suffix(path) in (".py", ".pyi"):
        # Python's rule as the ranker was fitted with it (a Django `tests.py` stays out).
        return (
            any(part in _PYTHON_TEST_DIRS for part in folders(path))
            or name.startswith("test_")
            or name.endswith("_test.py")
            or name == "conftest.py"
        )
    return (
        any(part in _TEST_DIRS for part in folders(path))
        or name in _TEST_FILES
        or _TEST_NAME.search(name) is not None
    )


# What people type for a language, beside its own name.
_LANGUAGE_ALIASES = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "golang": "go",
    "kt": "kotlin",
    "c#": "csharp",
    "cs": "csharp",
    "c++": "cpp",
    "cxx": "cpp",
    "rb": "ruby",
    "rs": "rust",
    "ex": "elixir",
    "hs": "haskell",
    "sh": "bash",
    "shell": "bash",
    "md": "markdown",
    "yml": "yaml",
    "rest": "rst",
    "docker": "dockerfile",
    "make": "makefile",
}


@lru_cache(maxsize=1)
def known_languages() -> tuple[str, ...]:
    """Every language a unit can have: the code languages, then the documentation and
    configuration formats."""
    from indexing.languages import CODE_LANGUAGES
    from indexing.text_units import TEXT_FORMATS

    return (*CODE_LANGUAGES, *TEXT_FORMATS)


def parse_languages(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The languages a caller asked for, as unit languages: repeated values or comma lists,
    any case, common short names (`ts`, `c++`, `yml`). ValueError, with the known names, for a
    language RepoRift does not read."""
    values = [value] if isinstance(value, str) else list(value or [])
    known = known_languages()
    found: list[str] = []
    for item in values:
        for word in str(item).split(","):
            name = word.strip().lower()
            if not name:
                continue
            name = _LANGUAGE_ALIASES.get(name, name)
            if name not in known:
                raise ValueError(
                    f"unknown language {word.strip()!r}; RepoRift reads {', '.join(known)}"
                )
            # TypeScript's JSX files are their own grammar; asked for, TypeScript means both.
            found.extend(("typescript", "tsx") if name == "typescript" else (name,))
    return tuple(dict.fromkeys(found))


# Folders and names of code that exercises, shows or feeds other code: benchmarks, examples,
# samples, demos, fixtures and test data, and generated files (protobuf, bindings).
_AUXILIARY_DIRS = frozenset(
    [
        "bench",
        "benches",
        "benchmark",
        "benchmarks",
        "example",
        "examples",
        "sample",
        "samples",
        "demo",
        "demos",
        "fixtures",
        "fixture",
        "testdata",
        "test_data",
        "test-data",
        "perf",
        # One-header copies of a library's every source (Catch2's, simdjson's).
        "single_include",
        "single-include",
        # A code host's issue and pull-request forms: every feature's words, no feature.
        "issue_template",
    ]
)
_GENERATED_NAME = re.compile(
    r"(_pb2(_grpc)?\.py|\.pb\.go|\.g\.dart|\.generated\.\w+|_generated\.\w+|"
    r"amalgamat\w*\.\w+|\.d\.ts)$"
)


@lru_cache(maxsize=65536)
def is_auxiliary_path(path: str) -> bool:
    """A benchmark, example, demo, fixture or generated file (an amalgamated single-header
    copy, a TypeScript declaration file beside its JavaScript too): what uses the words of the
    code it exercises, shows or mirrors, and comes after its definitions."""
    name = path.rsplit("/", 1)[-1]
    return any(part.lower() in _AUXILIARY_DIRS for part in folders(path)) or bool(
        _GENERATED_NAME.search(name) or re.match(r"bench(mark)?s?[_-]", name.lower())
    )


@lru_cache(maxsize=65536)
def is_interface_path(path: str) -> bool:
    """A file that by its language's convention holds an interface (`interface_files`): it
    repeats the words of the implementation that answers a question of behaviour."""
    from indexing.languages import language_for_path

    spec = language_for_path(path)
    if spec is None or not spec.interface_files:
        return False
    return re.fullmatch(spec.interface_files, path.rsplit("/", 1)[-1]) is not None
