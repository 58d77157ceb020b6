"""Training rows for the learned ranker in the languages beyond Python, generated from the train
corpora (benchmarks/questions/languages/train-corpora.json: JavaScript, TypeScript, Go, Rust,
Ruby, PHP, Lua, C and Bash packages that no dev or held-out set uses).

    python -m benchmarks.corpora fetch --manifest benchmarks/questions/languages/train-corpora.json
    python -m benchmarks.language_train [--out var/benchmarks/language-train] [--per-kind 40]

Language-neutral: every file is read by the product's own parser (`indexing.parsing`), so a
language's rows come from its data file's rules, not from code here. Two kinds per corpus:
- behaviour: a definition's doc comment, first sentence (JSDoc, `///`, `#` above...); the
  target is that definition, and its doc comment is blanked in the indexed copy (lines kept, so
  the rest of the file is unchanged), or a query would find its own sentence;
- symbol: a definition's name as typed (`parse`, or `Router.handle` in the language's own
  qualified form); the target is every definition of it.
A sentence that opens two doc comments of the corpus is never asked; tests are indexed but
never asked about. Rows are in the `repo` format, like the package rows, with `kind`, `source`
and `language`; `train_ranker --question-rows` takes them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.package_benchmark import usable_query
from indexing.code_comments import BLOCK_CLOSERS, BLOCK_OPENERS, LINE_MARKERS
from indexing.file_selection import iter_source_files
from indexing.languages import language_named
from indexing.parsing import parse_source, summary_line
from search.evaluation.corpus_manifest import CorpusEntry, corpora_dir, read_manifest
from search.filters import is_test_path

MANIFEST = Path(__file__).resolve().parent / "questions" / "languages" / "train-corpora.json"
ASKED_KINDS = ("function", "method", "class")


@dataclass(frozen=True)
class Definition:
    path: str
    qualname: str
    name: str
    sentence: str  # the doc comment's first sentence, or ""


def _order(key: str) -> str:
    return hashlib.sha1(key.encode()).hexdigest()


def definitions(copy_root: Path, language: str) -> list[Definition]:
    """Every function, method and type in the corpus's files of `language`, as indexed."""
    found = []
    for entry in iter_source_files(copy_root, max_file_bytes=2 * 1024 * 1024, warnings=[]):
        parsed = parse_source(entry.absolute.read_bytes(), path=entry.path)
        if parsed.language != language:
            continue
        for unit in parsed.units:
            if unit.kind in ASKED_KINDS:
                sentence = summary_line(unit.docstring, limit=None) if unit.docstring else ""
                found.append(Definition(entry.path, unit.qualname, unit.name, sentence))
    return found


def blank_doc_comment(lines: list[str], start: int, name: str) -> None:
    """Blank the comment lines a definition's span opens with (`start`, 0-based), up to the
    line that names it, with the comment markers the parser reads docs by."""
    in_block = False
    for row in range(start, min(len(lines), start + 400)):
        text = lines[row].strip()
        # `*` too: a JSDoc line that closes a block early (`{@link a */b}`) ends no comment.
        is_comment = in_block or text.startswith((*LINE_MARKERS, *BLOCK_OPENERS, "*"))
        if not is_comment and name in text:
            break
        if is_comment:
            in_block = (in_block or text.startswith(BLOCK_OPENERS)) and not text.endswith(
                BLOCK_CLOSERS
            )
            lines[row] = "\n" if lines[row].endswith("\n") else ""


def strip_docs(copy_root: Path, asked: list[Definition]) -> list[Definition]:
    """Blank the doc comment of each asked definition in the copy; the definitions whose doc
    is gone when the file is parsed again (the others are dropped, never asked)."""
    by_path: dict[str, list[Definition]] = {}
    for definition in asked:
        by_path.setdefault(definition.path, []).append(definition)
    kept = []
    for path, wanted in by_path.items():
        file = copy_root / path
        source = file.read_bytes()
        starts = {
            u.qualname: u.start_line - 1
            for u in parse_source(source, path=path).units
            if u.kind in ASKED_KINDS
        }
        lines = source.decode("utf-8", errors="replace").splitlines(keepends=True)
        for definition in wanted:
            if definition.qualname in starts:
                blank_doc_comment(lines, starts[definition.qualname], definition.name)
        stripped = "".join(lines).encode("utf-8")
        file.write_bytes(stripped)
        docs = {u.qualname: u.docstring for u in parse_source(stripped, path=path).units}
        kept += [d for d in wanted if d.qualname in docs and not docs[d.qualname].strip()]
    return kept


def build_corpus(entry: CorpusEntry, corpora: Path, out: Path, per_kind: int) -> list[dict]:
    spec = language_named(entry.language)
    copy_root = out / entry.name
    shutil.rmtree(copy_root, ignore_errors=True)
    shutil.copytree(entry.directory(corpora), copy_root, symlinks=True)
    found = definitions(copy_root, spec.name)
    askable = [d for d in found if not is_test_path(d.path)]
    every_sentence = Counter(d.sentence.lower() for d in found if d.sentence)
    documented = sorted(
        (
            d
            for d in askable
            if usable_query(d.sentence) and every_sentence[d.sentence.lower()] == 1
        ),
        key=lambda d: _order(f"{d.path}:{d.qualname}"),
    )
    chosen_docs = strip_docs(copy_root, documented[:per_kind])
    places: dict[str, list[Definition]] = {}
    for definition in found:
        places.setdefault(definition.qualname, []).append(definition)
    # A name of four characters or more defined in three places or fewer: what a developer types.
    symbols = sorted(
        (q for q, defs in places.items() if len(defs) <= 3 and len(q) >= 4), key=_order
    )
    symbols = [q for q in symbols if any(not is_test_path(d.path) for d in places[q])]

    def row(query: str, kind: str, source: str, gold: list[Definition]) -> dict:
        targets = [{"path": d.path, "qualname": d.qualname} for d in gold]
        return {
            "query": query,
            "repo": entry.name,
            "language": spec.name,
            "kind": kind,
            "source": source,
            "gold": targets,
        }

    rows = [row(d.sentence, "behaviour", "doc comment", [d]) for d in chosen_docs]
    rows += [row(q, "symbol", "definition name", places[q]) for q in symbols[: per_kind // 2]]
    print(
        f"{entry.name} ({spec.name}): {len(found)} definitions, {len(documented)} with a usable "
        f"doc sentence, {len(chosen_docs)} asked, {min(len(symbols), per_kind // 2)} names"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--corpora", help="default: REPORIFT_CORPORA, else var/corpora")
    parser.add_argument("--out", type=Path, default=Path("var/benchmarks/language-train"))
    parser.add_argument("--per-kind", type=int, default=40)
    args = parser.parse_args()
    corpora = corpora_dir(args.corpora)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for entry in read_manifest(args.manifest).values():
        rows += build_corpus(entry, corpora, args.out, args.per_kind)
    rows_file = args.out / "train.jsonl"
    rows_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    kinds = Counter(r["kind"] for r in rows)
    print(f"{len(rows)} rows ({dict(kinds)}) -> {rows_file}")


if __name__ == "__main__":
    main()
