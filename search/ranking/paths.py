"""A file's path as evidence for a question in words: the file named for the topic.

People ask for "the yaml adapter", "date parsing helpers" or "translating ranges", and the file a
reader opens is the one whose path carries those words (`adapters/yaml_adapter.js`,
`date_parse.c`, `translate_range.zig`), though other files' units share more of the question's
words in their bodies. Here a path is read as words (its folders, and its file name split at
separators and case changes), each query word matched to a path word of the same stem
("parsing" to `parse`, "validation" to `validator`), and each match weighed by how rare the word
is among the repository's paths: `yaml` in one file of thousands says much, `src` or `test` in
half of them nothing.

The repository's word counts are made once per generation (`PathWords`, from the file map
search keeps anyway); a search then reads only its candidates' paths.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from indexing.unit_text import file_stem, file_suffix

# Separators and case changes: `yaml_adapter`, `XMLConfigBuilder`, `parse-options`. Digits
# name no topic (`http2`, a snippet's number) and are left out.
_PIECES = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# Folder and file names that name no topic: layout conventions of every language.
GENERIC_PARTS = frozenset(
    {
        *("src", "lib", "app", "main", "index", "init", "mod", "core", "utils", "util"),
        *("common", "base", "internal", "pkg", "cmd", "include", "source", "sources"),
        *("java", "kotlin", "scala", "python", "org", "com", "net", "io", "impl", "misc"),
        *("helper", "helpers", "test", "tests", "spec", "specs"),
    }
)
# Files that stand for their folder (a package's, module's or crate's entry).
FOLDER_FILES = frozenset({"__init__", "mod", "init", "index", "lib", "main"})
# Question words that name no topic ("how does X work", "what handles Y").
_QUESTION_WORDS = frozenset(
    {
        *("how", "does", "do", "did", "what", "which", "where", "when", "why", "who", "is"),
        *("are", "was", "were", "the", "a", "an", "and", "or", "of", "to", "for", "in", "on"),
        *("with", "from", "by", "at", "it", "its", "this", "that", "these", "those", "into"),
        *("work", "works", "working", "handle", "handles", "handled", "get", "gets", "make"),
        *("makes", "made", "be", "been", "can", "i", "we", "you", "my", "our", "their", "them"),
        *("each", "every", "all", "some", "any", "when", "then", "than", "there", "here"),
        *("not", "no", "one", "two", "new", "use", "used", "uses", "using"),
    }
)
# A query word and a path word are one stem when they share this many first letters at least,
# and all but two letters of the shorter (`parsing`/`parse`, `validation`/`validator`,
# `adapters`/`adapter`; not `request`/`require`). Shorter words must match exactly (`io`, `db`)
_STEM_CHARS = 4
_STEM_SLACK = 2
# ... and the longer has at most this many letters more than they share (`parsing`/`parse`,
# not `keys`/`keystate`).
_STEM_TAIL = 3


def split_words(text: str) -> list[str]:
    """A name's words, lower case: `XMLConfigBuilder` -> xml, config, builder."""
    return [piece.lower() for piece in _PIECES.findall(text)]


@lru_cache(maxsize=65536)
def path_words(path: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of a file's name and those of its folders, generic ones left out. A file that
    stands for its folder (`mod.rs`, `__init__.py`, `index.ts`) is named by its folder."""
    folders = path.split("/")[:-1]
    stem = file_stem(path)
    if stem.lower().strip("_") in FOLDER_FILES and folders and file_suffix(path) != "":
        stem = folders.pop()
    name = frozenset(split_words(stem)) - GENERIC_PARTS
    folder = frozenset(w for part in folders for w in split_words(part)) - GENERIC_PARTS - name
    return name, folder


@dataclass(frozen=True)
class PathWords:
    """How many of a repository's files carry each word in their path (name or folders)."""

    files: int
    frequency: Mapping[str, int]
    # Each word's rarity once worked out (asked for every candidate's path of every search).
    _rarities: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def rarity(self, word: str) -> float:
        """log(1 + files / files with the word), as a fraction of the rarest word's."""
        found = self._rarities.get(word)
        if found is None:
            top = math.log1p(self.files)
            share = self.files / max(self.frequency.get(word, 1), 1)
            found = self._rarities[word] = math.log1p(share) / top if top else 0.0
        return found


def count_path_words(paths: Iterable[str]) -> PathWords:
    counts: Counter[str] = Counter()
    files = 0
    for path in paths:
        files += 1
        name, folder = path_words(path)
        counts.update(name | folder)
    return PathWords(files, counts)


def topic_words(words: Iterable[str]) -> frozenset[str]:
    """The question's words that may name a topic."""
    return frozenset(w for w in words if w not in _QUESTION_WORDS and w not in GENERIC_PARTS)


def same_stem(query_word: str, path_word: str) -> bool:
    if query_word == path_word:
        return True
    # Most pairs differ in their first letters: one comparison settles them.
    if query_word[:_STEM_CHARS] != path_word[:_STEM_CHARS]:
        return False
    shorter = min(len(query_word), len(path_word))
    if shorter < _STEM_CHARS:
        return False
    shared = _STEM_CHARS
    while shared < shorter and query_word[shared] == path_word[shared]:
        shared += 1
    longer = max(len(query_word), len(path_word))
    return shared >= shorter - _STEM_SLACK and longer - shared <= _STEM_TAIL


def path_topic(
    path: str, words: frozenset[str], counts: PathWords, *, folder_weight: float = 0.5
) -> float:
    """How well the file's path names the question's topic, from 0 to 1: the geometric mean of
    the share of its name's words the question has (each weighed by its rarity among the
    repository's paths) and the share of the question's `words` (`topic_words`) its path
    has (a folder's word counting `folder_weight`). "the yaml adapter" names
    `yaml_adapter.js` wholly; a long sentence that has one word of a file's name names it
    little."""
    name, folder = path_words(path)
    if not words or not name:
        return 0.0
    named = total = 0.0
    in_name: set[str] = set()
    for word in name:
        rarity = counts.rarity(word)
        total += rarity
        matched = {asked for asked in words if same_stem(asked, word)}
        if matched:
            named += rarity
            in_name |= matched
    if not named or not total:
        return 0.0
    in_folder = {asked for asked in words - in_name for f in folder if same_stem(asked, f)}
    asked = len(in_name) + folder_weight * len(in_folder)
    return math.sqrt(named / total * asked / len(words))
