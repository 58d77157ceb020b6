"""Training pairs for the code-search embedder, built deterministically from what the data rules
allow (docs/BENCHMARKS.md, "The data, and what may be tuned on it"):

- docstring -> code pairs from installed packages that are not dev packages: the docstring's
  first sentence, and the unit's text as the index embeds it with the file's function docstrings
  stripped; no tests, no vendored files; at most `--per-package` a package, chosen by a hash.
  Each pair's hard negative: a sibling from the same file whose name shares words with the
  answer's (`client_path_to_os_path` for `os_path_to_client_path`), else a unit of the package
  that does, else another unit of the file.
- CoSQA's training pairs: label 1 as (query, code) positives, each with a hard negative (below).

A pair whose query opens a docstring of a dev package, or whose code is a dev package's unit, is
dropped (a package outside the dev set may copy one): nothing of the dev sets leaks in. A
package that is a held-out project (by its import name or its distribution's) gives no pair.

    python -m benchmarks.embedder_data --cosqa $COSQA/cosqa-train-pairs.json \
        --heldout $HELDOUT/projects.txt [--out var/benchmarks/embedder/pairs.jsonl] \
        [--per-package 600]

writes the pairs (one JSON object a line) and `<out>.stats.json` (counts per source, the file's
sha256: the data recipe's hash that the embedder's manifest records).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from benchmarks.common import order_key, words_of
from benchmarks.heldout import is_held_out, list_sha256, read_projects
from benchmarks.package_benchmark import (
    _NOT_ASKED,
    DEV_PACKAGES,
    HELD_OUT_INSTALLED,
    documented_functions,
    strip_function_docstrings,
)
from indexing.parsing import MODULE, parse_source
from indexing.unit_text import code_text, identifier_words
from search.evaluation.questions import DISTRIBUTIONS, package_root

PER_PACKAGE = 600
# RepoRift's own code (every package of the `reporift` distribution, and these directories
# that are not installed) is not third-party data.
OWN_DISTRIBUTION = "reporift"
NOT_DATA = {"benchmarks", "tests"}
_MIN_CODE_LINES = 2
_JUDGED_OVERLAP = 0.6


@dataclass(frozen=True)
class FileUnit:
    path: str
    qualname: str
    name_words: frozenset[str]
    code: str


# Kept out of the training data: the dev packages and the installed held-out projects.
KEPT_OUT = DEV_PACKAGES + HELD_OUT_INSTALLED


def data_packages(held_out: frozenset[str] = frozenset()) -> list[str]:
    """Top-level packages of the installed distributions, dev packages and their distributions
    excluded, and every one that is a held-out project (`held_out`, normalised names), in a
    fixed order."""
    dev = set(KEPT_OUT)
    dev_distributions = {DISTRIBUTIONS.get(n, n).lower() for n in KEPT_OUT}
    names = set()
    for top, distributions in metadata.packages_distributions().items():
        if top in dev or any(d.lower() in dev_distributions for d in distributions):
            continue
        if OWN_DISTRIBUTION in (d.lower() for d in distributions):
            continue
        if is_held_out([top, *distributions], held_out):
            continue
        # Forks and companions of a dev package (httpx2, crewai_core) may share its code.
        if any(top.lower().startswith(name.lower().strip("_")) for name in dev):
            continue
        if top.isidentifier() and not top.startswith("__") and top not in NOT_DATA:
            names.add(top)
    return sorted(names)


def source_files(root: Path):
    for file in sorted(root.rglob("*.py")):
        relative = file.relative_to(root.parent).as_posix()
        if _NOT_ASKED.search(relative) or file.name.startswith("test_"):
            continue
        yield file, relative


def definitions(source: str) -> list:
    """The functions, methods and classes of a file: the units the shipped delta was trained
    on (module blocks came later; the recipe, and its hash, stay as they were)."""
    return [u for u in parse_source(source.encode()).units if u.kind != MODULE]


def _package_dir(name: str) -> Path | None:
    """The package's source folder, or None for a single-file module (an extension's
    `_cffi_backend`: its folder is site-packages itself) or one that does not import cleanly."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            return None
        root = package_root(name)
    except Exception:  # an installed module that does not import cleanly is no data
        return None
    if not root.is_dir() or (root.name != name.split(".")[0] and name not in KEPT_OUT):
        return None
    return root


def package_units(name: str) -> tuple[list[dict], list[FileUnit]]:
    """(pairs without negatives, every unit of the package) for one package."""
    root = _package_dir(name)
    if root is None:
        return [], []
    pairs, units = [], []
    for file, relative in source_files(root):
        try:
            source = file.read_text(encoding="utf-8")
            tree = ast.parse(source)
            stripped = strip_function_docstrings(source, tree)
        except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        parsed = {u.qualname: u for u in definitions(stripped)}
        for unit in parsed.values():
            units.append(
                FileUnit(
                    relative, unit.qualname, frozenset(identifier_words(unit.name)), code_text(unit)
                )
            )
        for candidate in documented_functions(tree, relative):
            unit = parsed.get(candidate.qualname)
            if unit is None or unit.code.count("\n") + 1 < _MIN_CODE_LINES:
                continue
            pairs.append(
                {
                    "query": candidate.query,
                    "code": code_text(unit),
                    "source": f"package:{name}",
                    "path": relative,
                    "qualname": candidate.qualname,
                }
            )
    return pairs, units


def hard_negative(pair: dict, units: list[FileUnit], by_word: dict[str, list[int]]) -> str:
    """The sibling most easily mistaken for the answer (see the module docstring)."""
    name_words = frozenset(identifier_words(pair["qualname"].rsplit(".", 1)[-1]))

    def usable(u: FileUnit) -> bool:
        return u.code != pair["code"] and not (
            u.path == pair["path"] and u.qualname in (pair["qualname"],)
        )

    shared = Counter()
    for word in name_words:
        for index in by_word.get(word, ()):
            shared[index] += 1
    ranked = sorted(
        (i for i in shared if usable(units[i])),
        key=lambda i: (
            units[i].path != pair["path"],  # the same file first
            -shared[i],
            order_key(pair["qualname"], units[i].path, units[i].qualname),
        ),
    )
    if ranked:
        return units[ranked[0]].code
    same_file = sorted(
        (u for u in units if u.path == pair["path"] and usable(u)),
        key=lambda u: order_key(pair["qualname"], u.qualname),
    )
    return same_file[0].code if same_file else ""


def dev_exclusions() -> tuple[set[str], set[str]]:
    """Every docstring first sentence (lowercased) and every unit text of the packages kept out."""
    queries, codes = set(), set()
    for name in KEPT_OUT:
        pairs, units = package_units(name)
        queries.update(p["query"].lower() for p in pairs)
        codes.update(u.code for u in units)
    return queries, codes


def package_pairs(
    per_package: int, dev_queries: set[str], dev_codes: set[str], held_out: frozenset[str]
) -> list[dict]:
    out = []
    for name in data_packages(held_out):
        pairs, units = package_units(name)
        pairs = _selected(pairs, per_package, dev_queries, dev_codes)
        if not pairs:
            continue
        by_word: dict[str, list[int]] = defaultdict(list)
        for index, unit in enumerate(units):
            for word in unit.name_words:
                by_word[word].append(index)
        for pair in pairs:
            pair["negative"] = hard_negative(pair, units, by_word)
        print(f"{name}: {len(pairs)} pairs", file=sys.stderr)
        out += pairs
    return out


def _selected(
    pairs: list[dict], cap: int, dev_queries: set[str], dev_codes: set[str]
) -> list[dict]:
    """At most `cap` of one package's pairs of one kind, chosen by a hash, with nothing of the
    dev sets and no ambiguous sentence (overloads, copied docstrings: no single answer)."""
    pairs = [
        p for p in pairs if p["query"].lower() not in dev_queries and p["code"] not in dev_codes
    ]
    seen_queries = Counter(p["query"].lower() for p in pairs)
    pairs = [p for p in pairs if seen_queries[p["query"].lower()] == 1]
    return sorted(pairs, key=lambda p: order_key(p["path"], p["qualname"]))[:cap]


def cosqa_pairs(path: Path) -> list[dict]:
    """Label 1 as positives. CoSQA judged each label-0 code against another query than any
    positive's (no query has both labels), so a positive's hard negative is the label-0 code of
    the closest judged query (word overlap at least `_JUDGED_OVERLAP`), else a snippet whose
    function name shares words with the answer's."""
    rows = json.loads(path.read_text())
    judged = [(words_of(r["query"]), r["code"]) for r in rows if int(r["label"]) == 0]
    pool = sorted({code_text_of_snippet(r["code"]) for r in rows})
    by_word: dict[str, list[int]] = defaultdict(list)
    names = [_function_words(code) for code in pool]
    for index, words in enumerate(names):
        for word in words:
            by_word[word].append(index)
    out = []
    for row in rows:
        if int(row["label"]) != 1:
            continue
        query, code = row["query"].strip(), code_text_of_snippet(row["code"])
        words = words_of(query)
        best = max(
            judged,
            key=lambda j: (len(words & j[0]) / max(1, len(words | j[0])), order_key(query, j[1])),
        )
        if len(words & best[0]) / max(1, len(words | best[0])) >= _JUDGED_OVERLAP:
            negative, kind = code_text_of_snippet(best[1]), "judged"
        else:
            shared = Counter(i for w in _function_words(code) for i in by_word.get(w, ()))
            ranked = sorted(
                (i for i in shared if pool[i] != code),
                key=lambda i: (-shared[i], order_key(query, pool[i])),
            )
            negative, kind = (pool[ranked[0]], "sibling") if ranked else ("", "")
        if negative == code:
            negative, kind = "", ""
        out.append({"query": query, "code": code, "negative": negative, "source": f"cosqa:{kind}"})
    return out


def _function_words(code: str) -> frozenset[str]:
    match = re.search(r"def\s+(\w+)", code)
    return frozenset(identifier_words(match.group(1))) if match else frozenset()


def code_text_of_snippet(code: str) -> str:
    """A snippet as the index embeds it: its first unit's text (CoSQA's snippets are one
    function each), or the snippet itself when it holds no unit."""
    units = definitions(code)
    return code_text(units[0]) if units else code[:3000]


def build(out: Path, *, cosqa: Path | None, per_package: int, heldout: Path) -> dict:
    pairs = package_pairs(per_package, *dev_exclusions(), read_projects(heldout))
    if cosqa is not None:
        pairs += cosqa_pairs(cosqa)
    pairs.sort(key=lambda p: order_key(p["source"], p["query"], p["code"]))
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(
        json.dumps({k: p[k] for k in ("query", "code", "negative", "source")}, sort_keys=True)
        + "\n"
        for p in pairs
    )
    out.write_text(text)
    sources = Counter(p["source"].split(":")[0] for p in pairs)
    package_names = sorted(
        {p["source"].split(":")[1] for p in pairs if not p["source"].startswith("cosqa:")}
    )
    stats = {
        "pairs": len(pairs),
        "by_source": dict(sorted(sources.items())),
        "with_negative": sum(1 for p in pairs if p["negative"]),
        "packages": len(package_names),
        # The recipe depends on what is installed: name the packages, so that a different
        # hash can be traced to a different environment.
        "package_names": package_names,
        "per_package": per_package,
        "heldout_sha256": list_sha256(heldout),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    Path(f"{out}.stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("var/benchmarks/embedder/pairs.jsonl"))
    parser.add_argument("--cosqa", type=Path, help="cosqa-train-pairs.json")
    parser.add_argument("--per-package", type=int, default=PER_PACKAGE)
    parser.add_argument(
        "--heldout", type=Path, required=True, help="the held-out projects list (projects.txt)"
    )
    args = parser.parse_args()
    stats = build(args.out, cosqa=args.cosqa, per_package=args.per_package, heldout=args.heldout)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
