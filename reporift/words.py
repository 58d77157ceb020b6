"""Counts in words, the same on every surface (pages, messages, the command line, logs)."""

from __future__ import annotations

# Nouns whose plural is not the noun and an "s".
_IRREGULAR = {
    "is": "are",
    "was": "were",
    "has": "have",
    "this": "these",
    "repository": "repositories",
}


def plural(count: int, noun: str, many: str = "") -> str:
    """`count` and `noun`, the noun in the plural unless the count is one: "1 file", "2 files",
    "0 units"; `many` for a plural the table below does not know."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {many or _IRREGULAR.get(noun) or noun + 's'}"
