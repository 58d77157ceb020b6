"""Search filters and the test-path rule: pure functions of a unit's path and kind, shared by
search, its features and the evaluation lab."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath


@dataclass(frozen=True)
class SearchFilters:
    path: str = ""  # a prefix ("pkg/sub/") or a glob ("*/models.py")
    kinds: tuple[str, ...] = ()
    exclude_tests: bool = False

    @property
    def active(self) -> bool:
        return bool(self.path or self.kinds or self.exclude_tests)

    def allows(self, path: str, kind: str) -> bool:
        if self.kinds and kind not in self.kinds:
            return False
        if self.exclude_tests and is_test_path(path):
            return False
        if self.path:
            if any(c in self.path for c in "*?["):
                return fnmatch.fnmatchcase(path, self.path)
            return path.startswith(self.path.lstrip("/"))
        return True


@lru_cache(maxsize=65536)
def is_test_path(path: str) -> bool:
    # Asked of every candidate of every search (a ranker feature): a repository's paths repeat.
    pure = PurePosixPath(path)
    name = pure.name
    return (
        any(part in ("test", "tests", "testing") for part in pure.parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )
