"""A generation's files as search sees them: every indexed path, which file each unit of the
lexical index lies in, and a path mention resolved to the files it may mean.

Built once per generation (one query of unit ids and paths) and kept beside the lexical index
it is aligned with, so that a file ranking can add up evidence over every unit of every file in
array operations instead of over the few units a unit search returned.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from indexing.lexical import GenerationCache, lexical_index_for_run
from indexing.models import IndexRun
from search.name_index import name_index
from search.ranking.paths import PathWords, count_path_words


@dataclass
class FileMap:
    paths: list[str]
    languages: list[str]  # each file's, as its units say
    # For each position of the lexical index (its `unit_ids`), the index of the unit's file.
    file_of_position: np.ndarray
    index_of_path: dict[str, int]
    by_basename: dict[str, list[int]]

    def added_up(self, scores: np.ndarray, paths: Iterable[str]) -> dict[str, float]:
        """Per file of `paths`, the scores of its units (`scores` in the lexical index's
        order: BM25's for a query) added up. Reads only those files' units, however large
        the repository."""
        order, starts = self._units_by_file
        wanted = {path: i for path in paths if (i := self.index_of_path.get(path)) is not None}
        if not wanted:
            return {}
        files = np.fromiter(wanted.values(), dtype=np.int64, count=len(wanted))
        first, sizes = starts[files], starts[files + 1] - starts[files]
        # Every unit of the files asked for, file after file, gathered in one step.
        ends = np.cumsum(sizes)
        within = np.arange(ends[-1]) - np.repeat(ends - sizes, sizes)
        gathered = scores[order[np.repeat(first, sizes) + within]]
        owner = np.repeat(np.arange(len(files)), sizes)
        totals = np.bincount(owner, weights=gathered, minlength=len(files))
        return dict(zip(wanted, totals.tolist(), strict=True))

    @cached_property
    def _units_by_file(self) -> tuple[np.ndarray, np.ndarray]:
        """The lexical index's positions grouped by file (`order[starts[f]:starts[f + 1]]` are
        file f's), made once per generation."""
        order = np.argsort(self.file_of_position, kind="stable")
        starts = np.searchsorted(
            self.file_of_position[order], np.arange(len(self.paths) + 1), side="left"
        )
        return order, starts

    @cached_property
    def path_words(self) -> PathWords:
        """How many files carry each word in their path: what a search weighs a candidate's
        path by (`search.ranking.paths`), counted once per generation."""
        return count_path_words(self.paths)

    def resolve(self, mention: str) -> list[tuple[int, int]]:
        """The files a path as written in an issue may mean, with how many trailing path
        parts each shares with it: `/usr/lib/python3/site-packages/pkg/mod.py` means
        `pkg/mod.py` (2 parts), a bare `mod.py` any file of that name (1 part). Only the
        files sharing the most parts are returned."""
        parts = [p for p in mention.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts:
            return []
        best: list[tuple[int, int]] = []
        for index in self.by_basename.get(parts[-1], ()):
            have = self.paths[index].split("/")
            shared = 0
            while shared < min(len(have), len(parts)) and have[-1 - shared] == parts[-1 - shared]:
                shared += 1
            if not best or shared > best[0][1]:
                best = [(index, shared)]
            elif shared == best[0][1]:
                best.append((index, shared))
        return best


_maps: GenerationCache[FileMap] = GenerationCache()


def file_map(run: IndexRun) -> FileMap:
    return _maps.get(run, lambda key: _build(run))


def _build(run: IndexRun) -> FileMap:
    index = lexical_index_for_run(run)
    # The name index read every unit's row already (one query for both, at a warm-up).
    units = name_index(run).units
    path_of = {unit.pk: unit.path for unit in units}
    language_of = {unit.path: unit.language for unit in units}
    paths = sorted(language_of)
    index_of_path = {path: n for n, path in enumerate(paths)}
    file_of_position = np.array(
        [index_of_path.get(path_of.get(int(u), ""), -1) for u in index.unit_ids], dtype=np.int64
    )
    by_basename: dict[str, list[int]] = defaultdict(list)
    for n, path in enumerate(paths):
        by_basename[posixpath.basename(path)].append(n)
    languages = [language_of[path] for path in paths]
    return FileMap(paths, languages, file_of_position, index_of_path, dict(by_basename))
