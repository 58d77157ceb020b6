"""A generation's files as search sees them: a file's units' scores added up, and the words of
its paths counted once."""

from __future__ import annotations

import numpy as np
import pytest

from search.file_map import FileMap


def _files() -> FileMap:
    paths = ["adapters/yaml_adapter.js", "lib/formats.js", "lib/loader.js"]
    # Lexical index positions: two units of the adapter, one of formats, one outside any file
    # (-1), and two of the adapter again.
    return FileMap(
        paths=paths,
        languages=["javascript"] * 3,
        file_of_position=np.array([0, 0, 1, -1, 0, 0]),
        index_of_path={path: n for n, path in enumerate(paths)},
        by_basename={},
    )


def test_added_up_sums_every_unit_of_each_file_asked_for():
    scores = np.array([1.0, 2.0, 3.0, 100.0, 0.5, 0.25], dtype=np.float32)
    files = _files()
    assert files.added_up(scores, ["adapters/yaml_adapter.js", "lib/formats.js"]) == {
        "adapters/yaml_adapter.js": pytest.approx(3.75),
        "lib/formats.js": pytest.approx(3.0),
    }
    # A file without units, and a path the generation does not hold.
    assert files.added_up(scores, ["lib/loader.js", "missing.js"]) == {"lib/loader.js": 0.0}


def test_path_words_are_counted_once_per_generation():
    files = _files()
    words = files.path_words
    assert words.files == 3 and words.frequency["yaml"] == 1 and words.frequency["adapter"] == 1
    assert files.path_words is words


def test_added_up_with_files_without_units_between_and_after():
    scores = np.array([1.0, 2.0, 3.0, 100.0, 0.5, 0.25], dtype=np.float32)
    asked = ["lib/loader.js", "adapters/yaml_adapter.js", "lib/loader.js", "lib/formats.js"]
    assert _files().added_up(scores, asked) == {
        "lib/loader.js": 0.0,
        "adapters/yaml_adapter.js": pytest.approx(3.75),
        "lib/formats.js": pytest.approx(3.0),
    }
    assert _files().added_up(scores, ["lib/loader.js"]) == {"lib/loader.js": 0.0}
