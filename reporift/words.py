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


# Where a long name may be cut: after a separator of a qualified name or a path.
_NAME_BREAKS = "./:#\\"


def elide_middle(text: str, width: int = 80) -> str:
    """`text` at most `width` characters, its middle replaced by "…" when longer: a deeply
    nested qualified name keeps its first parts (where it lives) and its last (what it is),
    cut after a separator where one is near. For people's screens; JSON keeps names whole."""
    if len(text) <= width:
        return text
    room = width - 1
    head_room, tail_room = room * 2 // 5, room - room * 2 // 5
    head = text[:head_room]
    tail = text[-tail_room:]
    # Whole parts where possible: end the head at a separator, start the tail after one.
    cut = max(head.rfind(c) for c in _NAME_BREAKS)
    if cut >= head_room // 2:
        head = head[: cut + 1]
    starts = [tail.find(c) for c in _NAME_BREAKS if 0 <= tail.find(c) < tail_room // 2]
    if starts:
        tail = tail[min(starts) + 1 :]
    return f"{head}…{tail}"
