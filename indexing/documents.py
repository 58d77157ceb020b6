"""The repository's own prose, for the research agent: README and docs paragraphs (collected by
each run) and the docstrings of its units, searched with BM25."""

from __future__ import annotations

import re
from pathlib import Path

from indexing.lexical import Generation, GenerationCache, LexicalIndex, bm25_index, tokenize

DOC_SUFFIXES = (".md", ".rst", ".txt")
MAX_DOC_FILES = 200
MAX_DOC_BYTES = 256 * 1024
MAX_CHUNK_CHARS = 1200
_PARAGRAPHS = re.compile(r"\n\s*\n")


def collect_document_chunks(root: Path) -> list[tuple[str, str]]:
    """(path, paragraph) from README* at the top and any .md/.rst/.txt under docs/ or doc/."""
    files = sorted(p for p in root.glob("README*") if p.is_file() and not p.is_symlink())
    for folder in ("docs", "doc"):
        base = root / folder
        if base.is_dir() and not base.is_symlink():
            files += sorted(
                p
                for p in base.rglob("*")
                if p.suffix.lower() in DOC_SUFFIXES and p.is_file() and not p.is_symlink()
            )
    chunks = []
    for file in files[:MAX_DOC_FILES]:
        if file.stat().st_size > MAX_DOC_BYTES:
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        relative = file.relative_to(root).as_posix()
        for paragraph in _PARAGRAPHS.split(text):
            paragraph = " ".join(paragraph.split())
            if len(paragraph) >= 40:
                chunks.append((relative, paragraph[:MAX_CHUNK_CHARS]))
    return chunks


# A generation's texts, and a BM25 index over them whose ids are positions in the list.
_indexes: GenerationCache[tuple[list[str], LexicalIndex]] = GenerationCache()


def search_repository_documents(*, run: Generation, query: str, n: int = 3) -> list[str]:
    """Best-matching README/docs paragraphs and docstrings of a generation, as short texts."""

    def build(_key: str) -> tuple[list[str], LexicalIndex]:
        texts = _texts(run.pk)
        return texts, bm25_index(range(len(texts)), [tokenize(t) for t in texts])

    texts, index = _indexes.get(run, build)
    return [texts[i] for i, _ in index.search(query, n=n)]


def _texts(run_id: int) -> list[str]:
    from indexing.models import CodeUnit, DocumentChunk

    texts = [
        f"{path}: {text}"
        for path, text in DocumentChunk.objects.filter(run_id=run_id).values_list("path", "text")
    ]
    docstrings = (
        CodeUnit.objects.filter(file_version__runs=run_id)
        .exclude(docstring="")
        .values_list("qualname", "docstring")
    )
    texts += [
        f"{qualname}: {doc.split(chr(10) * 2)[0][:MAX_CHUNK_CHARS]}" for qualname, doc in docstrings
    ]
    return texts
