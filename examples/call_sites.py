"""How a repository's own code calls a unit: the lines to show the example writer.

A small model given a signature guesses what goes in it (`Color("red")` for a class that wants
a `ColorType` too, `Message(body)` where the package passes `channel=`); the package's own
calls show the arguments real callers pass. CodeBenchGen gives its model the function's
context for the same reason. The search is a plain scan of the read-only copy's Python files
for `Name(` (and, for a method, `.method(` in files that also name its class, beside calls
that build the class), best sites first: short, with arguments, outside tests last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MAX_SITES = 4
MAX_LINE = 140  # a longer line is most often a call split over lines: shown cut, or skipped
MAX_FILES = 3000  # a repository's first files, in sorted order: the scan stays well under a second
MAX_FILE_BYTES = 400_000


@dataclass(frozen=True)
class CallSite:
    path: str  # relative to the repository's root
    line: int
    text: str  # the line, stripped

    def __str__(self) -> str:
        text = self.text if len(self.text) <= MAX_LINE else self.text[:MAX_LINE] + " ..."
        return f"{text}    # {self.path}:{self.line}"


def call_sites(
    root: Path, *, qualname: str, own_path: str, own_lines: tuple[int, int]
) -> list[CallSite]:
    """Up to MAX_SITES lines of the repository under `root` that call the unit `qualname`
    (defined in `own_path` over `own_lines`, which are never shown) or, for a method, build
    its class. Definitions, imports and comments are not call sites."""
    parts = qualname.split(".")
    if len(parts) > 2:
        return []
    if len(parts) == 1:
        patterns = [re.compile(rf"\b{re.escape(parts[0])}\(")]  # `self.Message(...)` too
        owner = parts[0]
    else:
        owner, method = parts
        patterns = [
            re.compile(rf"\.{re.escape(method)}\("),
            re.compile(rf"(?<![\w.]){re.escape(owner)}(?:\(|\.\w+\()"),
        ]
    found: list[tuple[tuple, CallSite]] = []
    for file in sorted(root.rglob("*.py"))[:MAX_FILES]:
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                continue
            text = file.read_text(errors="replace")
        except OSError:
            continue
        path = file.relative_to(root).as_posix()
        # A file that never names the unit (or a method's class) calls something else of that
        # name, most likely (`self.pipeline.reset()` is no call of `Hub.reset`).
        if owner not in text:
            continue
        for number, raw in enumerate(text.splitlines(), start=1):
            if path == own_path and own_lines[0] <= number <= own_lines[1]:
                continue
            line = raw.strip()
            if not _is_call_line(line):
                continue
            for rank, pattern in enumerate(patterns):
                if pattern.search(line):
                    found.append((_order(rank, line, path), CallSite(path, number, line)))
                    break
    found.sort(key=lambda item: item[0])
    sites: list[CallSite] = []
    seen: set[str] = set()
    of_kind = [0] * len(patterns)
    for key, site in found:
        # At most three of a kind, so that a method's object-building calls are shown too.
        if site.text in seen or of_kind[key[0]] >= MAX_SITES - 1:
            continue
        seen.add(site.text)
        of_kind[key[0]] += 1
        sites.append(site)
        if len(sites) == MAX_SITES:
            break
    return sites


def describe_sites(sites: list[CallSite]) -> str:
    if not sites:
        return ""
    shown = "\n".join(f"    {site}" for site in sites)
    return f"How the repository's own code calls it or builds its object:\n{shown}"


def _is_call_line(line: str) -> bool:
    return bool(line) and not line.startswith(
        ("#", "def ", "async def ", "class ", "import ", "from ", "@", '"', "'", ">>>")
    )


def _order(pattern: int, line: str, path: str) -> tuple:
    """Best first: the call itself before the class being built; then whole lines, calls with
    arguments (what a caller passes is what the model lacks), sites outside tests, shorter
    lines."""
    in_tests = "test" in path.lower()
    bare = bool(re.search(r"\(\)", line))
    cut = len(line) > MAX_LINE or line.count("(") != line.count(")")
    return (pattern, cut, bare, in_tests, len(line), path, line)
