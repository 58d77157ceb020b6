"""Word-piece ids of texts, as a BERT tokenizer of the `tokenizers` library gives them, faster.

The library spends nearly all of its time on code in its normaliser and pre-tokeniser (each
character tracked with its offsets), very little in WordPiece itself: about 2 MB of text a
second on one core, most of phase 1's embedding time. For the tokenizers of our embedders (a
`BertNormalizer` that lower-cases, a `BertPreTokenizer`, a `WordPiece` model) a text of
printable ASCII (tabs and line ends allowed) that holds no special token is split here exactly
as those two steps split it: lower-cased, into runs of letters and digits and every other
character alone, whitespace dropped. Each distinct piece is then looked up once per process, by
the tokenizer itself. A text with other characters is split at its line ends and only its lines
that are not plain go to the library; every text of a tokenizer of another kind goes to it
whole. tests/indexing/test_token_ids.py holds the two to the same ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from itertools import chain, islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# Clean-text, accent and Chinese-character rules of the normaliser do nothing to these
# characters, and the pre-tokeniser's whitespace and punctuation classes are plain here.
_PLAIN = re.compile(r"[\t\n\r\x20-\x7e]*")
_PIECE = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")
_MAX_PIECES = 300_000  # distinct pieces kept; code repeats a few tens of thousands


class TokenIds:
    """`encode(texts)`: each text's ids, cut at `max_length`, no special tokens added."""

    def __init__(self, tokenizer: Tokenizer, *, max_length: int) -> None:
        self.max_length = max_length
        self._tokenizer = tokenizer
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.no_padding()
        self._pieces: dict[str, tuple[int, ...]] = {}
        self._fast = _splits_like_bert(tokenizer)
        special = [t.content for t in tokenizer.get_added_tokens_decoder().values()]
        # The library finds its added tokens in the raw text before anything else.
        self._special = re.compile("|".join(map(re.escape, special))) if special else None

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in texts]
        whole: list[int] = []  # positions of the texts the library tokenizes itself
        # Each other text as segments in order: its pieces split here (a list), or the index
        # of a line the library tokenizes (an int).
        split: list[tuple[int, list[list[str] | int]]] = []
        lines: list[str] = []
        for row, text in enumerate(texts):
            if not self._fast:
                whole.append(row)
            elif self._is_plain(text):
                split.append((row, [_PIECE.findall(text.lower())]))
            else:
                # A line end always ends a piece (the pre-tokeniser splits at whitespace, and
                # the normaliser changes no character by its neighbours), so a text's ids are
                # its lines' ids in turn: only the lines that are not plain (a comment's accent,
                # a string's emoji) need the library's slow path, not the whole file.
                segments: list[list[str] | int] = []
                for line in text.split("\n"):
                    if self._is_plain(line):
                        segments.append(_PIECE.findall(line.lower()))
                    else:
                        segments.append(len(lines))
                        lines.append(line)
                split.append((row, segments))
        if whole:
            encodings = self._tokenizer.encode_batch(
                [texts[row] for row in whole], add_special_tokens=False
            )
            for row, encoding in zip(whole, encodings, strict=True):
                out[row] = encoding.ids
        if not split:
            return out
        self._learn(set().union(*(s for _, segments in split for s in segments if type(s) is list)))
        lookup = self._pieces.__getitem__
        line_ids = [e.ids for e in self._tokenizer.encode_batch(lines, add_special_tokens=False)]
        for row, segments in split:
            parts = (
                line_ids[s] if type(s) is int else chain.from_iterable(map(lookup, s))
                for s in segments
            )
            out[row] = list(islice(chain.from_iterable(parts), self.max_length))
        return out

    def _is_plain(self, text: str) -> bool:
        return _PLAIN.fullmatch(text) is not None and (
            self._special is None or self._special.search(text) is None
        )

    def _learn(self, pieces: set[str]) -> None:
        # Not `pieces - self._pieces.keys()`: a set less a dict's keys copies all the keys
        # first (23,000 after indexing one large repository: half a millisecond a query).
        known = self._pieces
        new = {piece for piece in pieces if piece not in known}
        if not new:
            return
        if len(self._pieces) + len(new) > _MAX_PIECES:
            self._pieces.clear()
            new = pieces  # every piece of this batch is looked up next
        # A piece alone passes through the normaliser and pre-tokeniser unchanged: its ids are
        # WordPiece's for it, as inside any text. The model is asked directly: the whole
        # pipeline's batch call costs about four times as much a piece (27,031 pieces: 0.05 s
        # against 0.18 to 0.26 s). Only plain pieces come here, and for those the two agree.
        tokenize = self._tokenizer.model.tokenize
        self._pieces.update((piece, tuple(t.id for t in tokenize(piece))) for piece in new)


def _splits_like_bert(tokenizer: Tokenizer) -> bool:
    """Whether the tokenizer normalises and pre-tokenises as the split above assumes."""
    config = json.loads(tokenizer.to_str())
    normalizer = config.get("normalizer") or {}
    return (
        normalizer.get("type") == "BertNormalizer"
        and normalizer.get("lowercase") is True
        and normalizer.get("clean_text") is True
        and (config.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
        and (config.get("model") or {}).get("type") == "WordPiece"
        # An added token matched after normalisation could span pieces; these are matched in
        # the raw text, where `_special` finds them first.
        and not any(token.get("normalized") for token in config.get("added_tokens") or [])
    )
