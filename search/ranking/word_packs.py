"""The ranker's words of every unit of a generation, saved once and read back by every process
that starts beside it (search.warmup): splitting and stemming each unit's code is a fifth of a
millisecond a unit, seconds at 24k units and more than a minute at 400k, the same for every
process. Saved packed (search.ranking.word_memo), about 250 bytes a unit.

Who saves them: the process that does a published run's background work (after its phase 2,
or where phase 2 would run: `save_every_unit`, told by indexing.signals), for every unit, taking
the words of units an earlier generation kept from its pack; and a warm-up that finds no pack,
for the units it read.

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
import sys
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db.models.functions import Length

from indexing.lexical import Generation, generation_key, lexical_index_for_run
from indexing.models import CodeUnit, IndexRun, Repository
from indexing.selectors import active_generations
from search.ranking.features import split_words
from search.ranking.word_memo import WordMemo

logger = logging.getLogger(__name__)


@cache
def _code_digest() -> str:
    """The feature code and the language data the words are computed with."""
    here = Path(__file__).resolve().parent
    sources = [
        here / "features.py",
        here / "word_memo.py",
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


Pack = tuple[list[str], dict[int, bytes]]  # WordMemo.saved: the words, each unit's numbers


def read_pack(run: Generation) -> Pack | None:
    path = pack_path(run)
    if not path.exists():
        return None
    try:
        with path.open("rb") as handle:
            words, packed = pickle.load(handle)  # written by this installation only (data dir)
    except Exception:  # half-written or from another Python: compute the words again
        logger.warning("could not read the word pack %s", path)
        return None
    return words, packed


def write_pack(run: Generation, pack: Pack, *, keep: set[str]) -> None:
    """Save the generation's words; remove the packs of generations not in `keep` (the
    generation keys still searched)."""
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = pack_path(run)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as handle:
        pickle.dump(pack, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, path)
    for other in folder.glob("*.pkl"):
        if other != path and other.name.rsplit("-", 1)[0] not in keep:
            other.unlink(missing_ok=True)


def save_every_unit(run: Generation, *, keep: set[str], previous: Generation | None) -> int:
    """The words of every unit of `run` saved in its pack, unless a pack of it holds them all:
    what `previous` (the generation it replaced) saved is taken as it is, since a unit of a
    file that did not change keeps its row. How many units were split."""
    ids = lexical_index_for_run(run).unit_ids.tolist()
    memo = WordMemo(sys.maxsize)  # this call's own, gone with it
    if (own := read_pack(run)) is not None:
        memo.adopt(*own)
        if all(pk in memo for pk in ids):
            return 0
    if previous is not None and (kept := read_pack(previous)) is not None:
        memo.adopt(*kept)
    split = 0
    for start in range(0, len(ids), 2000):
        # Each unit's guard first, without its code: a unit of an unchanged file is held
        # already, and only the others' rows are read (straight from the database, past the
        # row cache: a serving process's rows stay).
        guards = CodeUnit.objects.filter(pk__in=ids[start : start + 2000]).values_list(
            "pk", "start_line", Length("code")
        )
        lacking = [
            pk
            for pk, line, length in guards
            if not memo.holds(pk, start_line=line, code_length=length)
        ]
        for pk, unit in CodeUnit.objects.in_bulk(lacking).items():
            guard = {"start_line": unit.start_line, "code_length": len(unit.code)}
            memo.put(pk, split_words(unit), **guard)
            split += 1
    write_pack(run, memo.saved(ids), keep=keep)
    return split


def on_background_work(sender, *, run: IndexRun, **kwargs) -> None:
    """indexing.signals.background_work: every unit's words of the run just published (unless
    processes keep none: REPORIFT_WORD_MEMO_UNITS=0)."""
    if settings.REPORIFT["WORD_MEMO_UNITS"] <= 0:
        return
    searched = list(Repository.objects.filter(active_run__isnull=False))
    keep = {generation_key(g) for g in active_generations(repositories=searched).values()}
    previous = (
        IndexRun.objects.filter(repository_id=run.repository_id, status=IndexRun.Status.SUCCEEDED)
        .exclude(pk=run.pk)
        .order_by("-pk")
        .first()
    )
    split = save_every_unit(run, keep=keep | {generation_key(run)}, previous=previous)
    logger.info("run %s: the words of %d units split and saved", run.pk, split)
