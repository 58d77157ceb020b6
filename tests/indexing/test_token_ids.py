"""The static tier's word-piece ids: its own split of plain texts against the library's."""

from __future__ import annotations

from pathlib import Path

import django
import pytest
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

import indexing
from indexing.embedding import get_embedder
from indexing.token_ids import TokenIds

EDGES = [
    "",
    "   \n\t ",
    "def parseConfigFile(path_2, *args, **kw):  # XMLHttpRequest\r\n    return {'a': [1, 2.5e-3]}",
    "snake_case__dunder__ and CamelCaseHTTP2Server; 0xFF 1_000 \\n `tick` ~tilde| ^caret",
    "x" * 150 + " word " + "y" * 99,  # WordPiece's [UNK] for a word over 100 characters
    "supercalifragilisticexpialidociousness antidisestablishmentarianism",
    "fill the [MASK] or [CLS] token; [mask] is no special token",  # found in the raw text
    "naïve café \u2013 \u201cquoted\u201d 数据 ünïcode",  # not ASCII: the library's path
    "vertical\x0btab\x0cform feed\x00nul\x7fdel\x1cfile separator",  # control characters
    "word " * 700,  # cut at the maximum length
    # Plain lines around lines that are not: split at the line ends, the latter the library's
    "def f(x):\n    return 'naïve'  # café\r\n\n[CLS] x\n数据=1\n\tend \u2028 sep\n",
    "\n".join(["plain ascii line"] * 3 + ["\u00e9" * 5] + ["word"] * 600),  # cut across lines
    "\u00e9\n",
]


def library(tokenizer_file: Path, texts: list[str], max_length: int) -> list[list[int]]:
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(max_length=max_length)
    tokenizer.no_padding()
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def source_texts() -> list[str]:
    """Real code, as the index embeds it: this project's indexing package and part of
    Django's, whole files and their lines."""
    files = sorted(Path(indexing.__file__).parent.glob("*.py"))
    files += sorted((Path(django.__file__).parent / "utils").glob("*.py"))[:40]
    texts = [f.read_text(encoding="utf-8") for f in files]
    return texts + [line for text in texts for line in text.splitlines()]


@pytest.mark.parametrize("max_length", [512, 7])
def test_the_same_ids_as_the_library(max_length):
    tokenizer_file = get_embedder().tokenizer_file
    ids = TokenIds(Tokenizer.from_file(str(tokenizer_file)), max_length=max_length)
    texts = EDGES + source_texts()
    expected = library(tokenizer_file, texts, max_length)
    # In batches, as the static tier calls it: the pieces learnt by one serve the next.
    got = [i for start in range(0, len(texts), 100) for i in ids.encode(texts[start : start + 100])]
    assert got == expected
    assert ids._pieces  # the plain texts took the split, not the library's whole path
    assert 103 in expected[EDGES.index(EDGES[6])]  # [MASK]'s own id: a special token found


def test_the_same_ids_after_the_pieces_cache_overflows(monkeypatch):
    """A long-lived server learns pieces past the cache's bound: it starts again, and the
    batch that overflowed it still finds every one of its pieces (it once raised KeyError)."""
    monkeypatch.setattr("indexing.token_ids._MAX_PIECES", 300)
    tokenizer_file = get_embedder().tokenizer_file
    ids = TokenIds(Tokenizer.from_file(str(tokenizer_file)), max_length=512)
    texts = source_texts()[:400]
    expected = library(tokenizer_file, texts, 512)
    got = [i for start in range(0, len(texts), 50) for i in ids.encode(texts[start : start + 50])]
    assert got == expected


def test_a_tokenizer_of_another_kind_tokenizes_every_text_whole(tmp_path):
    vocab = {"[UNK]": 0, "def": 1, "parse": 2, "(": 3, ")": 4, ":": 5}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    ids = TokenIds(Tokenizer.from_file(str(tmp_path / "tokenizer.json")), max_length=512)
    texts = ["def Parse(): pass", "def parse():"]
    assert ids.encode(texts) == library(tmp_path / "tokenizer.json", texts, 512)
    assert not ids._pieces


def test_an_added_token_matched_after_normalising_keeps_texts_whole(tmp_path):
    tokenizer = Tokenizer.from_file(str(get_embedder().tokenizer_file))
    tokenizer.add_tokens([AddedToken("parse.config", normalized=True)])
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    ids = TokenIds(Tokenizer.from_file(str(tmp_path / "tokenizer.json")), max_length=512)
    texts = ["def load(path): return Parse.Config(path)", "plain words"]
    expected = library(tmp_path / "tokenizer.json", texts, 512)
    assert ids.encode(texts) == expected
    assert not ids._pieces
    assert len(expected[0]) < len(library(get_embedder().tokenizer_file, texts, 512)[0])
