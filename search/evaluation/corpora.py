"""Index the corpora of a dataset, once each, cached by content.

A snippet corpus becomes a directory with one file per snippet (`<id>.py`) and is indexed like a
repository; its results' paths are then snippet ids. A repository corpus is indexed from its
path or git URL. Both get a deterministic name from their content hash, so a second evaluation
of the same data reuses the index (and an edited corpus re-indexes incrementally).
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from indexing.embedding import get_embedder
from indexing.models import IndexRun, Repository
from indexing.services import index_run_execute, index_run_start, repository_create
from indexing.unit_text import TEXT_VERSION
from search.evaluation.datasets import Corpus, DatasetError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def snippet_filename(snippet_id: str) -> str:
    safe = _UNSAFE.sub("_", snippet_id)
    return f"{safe}.py"


def snippet_id_from_path(path: str) -> str:
    return path.removesuffix(".py")


def corpus_repository_name(corpus: Corpus) -> str:
    """The name of the repository a corpus is indexed as in an evaluation's data dir."""
    # The index depends on how units are embedded, so that is part of the cache key too.
    salt = f"{TEXT_VERSION}|{get_embedder().model_id}"
    return f"eval-{corpus.content_hash(salt)}"


def prepare_corpus(corpus: Corpus) -> Repository:
    name = corpus_repository_name(corpus)
    repository = Repository.objects.filter(name=name).first()
    if repository is None:
        if corpus.kind == "snippets":
            directory = _write_snippets(corpus, name)
            repository = repository_create(
                name=name,
                source=str(directory),
                source_kind=Repository.SourceKind.SNIPPETS,
                is_public=False,
            )
        else:
            repository = repository_create(
                name=name, source=corpus.source, ref=corpus.ref, is_public=False
            )
    if repository.active_run_id is None or corpus.kind == "repo":
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        if run.status != IndexRun.Status.SUCCEEDED:
            raise DatasetError(f"indexing corpus {corpus.key} failed: {run.error}")
        repository.refresh_from_db()
    return repository


def _write_snippets(corpus: Corpus, name: str) -> Path:
    directory = Path(settings.DATA_DIR) / "eval" / name
    directory.mkdir(parents=True, exist_ok=True)
    seen: dict[str, str] = {}
    for snippet_id, code in corpus.snippets.items():
        filename = snippet_filename(snippet_id)
        if filename in seen:
            raise DatasetError(f"snippet ids {seen[filename]!r} and {snippet_id!r} collide")
        seen[filename] = snippet_id
        (directory / filename).write_text(code, encoding="utf-8")
    return directory
