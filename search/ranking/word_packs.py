"""The ranker's words of every unit of a generation, saved once and read back by every process
that starts beside it (search.warmup): splitting and stemming each unit's code is about a
millisecond a unit, seconds at 24k units, and the same for every process.

A pack belongs to one generation (`indexing.lexical.generation_key`) and to the code that
computed it: its name carries a digest of the feature code and the languages' data, so a change
to either makes packs of the old code unreadable rather than wrong. Packs of generations no
longer searched are removed when a new one is written.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
from functools import cache
from pathlib import Path

from django.conf import settings

from indexing.lexical import Generation, generation_key
from search.ranking.features import UnitWords

logger = logging.getLogger(__name__)


@cache
def _code_digest() -> str:
    """The feature code and the language data the words are computed with."""
    here = Path(__file__).resolve().parent
    sources = [
        here / "features.py",
        *sorted((here.parents[1] / "indexing" / "languages").glob("*.py")),
    ]
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def _folder() -> Path:
    return Path(settings.DATA_DIR) / "word-packs"


def pack_path(run: Generation) -> Path:
    return _folder() / f"{generation_key(run)}-{_code_digest()}.pkl"


def read_pack(run: Generation) -> dict[int, UnitWords] | None:
    path = pack_path(run)
    if not path.exists():
        return None
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)  # written by this installation only (the data dir)
    except Exception:  # half-written or from another Python: compute the words again
        logger.warning("could not read the word pack %s", path)
        return None


def write_pack(run: Generation, words: dict[int, UnitWords], *, keep: set[str]) -> None:
    """Save the generation's words; remove the packs of generations not in `keep` (the
    generation keys still searched)."""
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = pack_path(run)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as handle:
        pickle.dump(words, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, path)
    for other in folder.glob("*.pkl"):
        if other != path and other.name.rsplit("-", 1)[0] not in keep:
            other.unlink(missing_ok=True)
