"""The unit representations the lab compares: name -> text of a unit (paths left out for
snippet corpora, whose file names are ids)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

from indexing.unit_text import code_text, header_text, identifier_words


def _before_this_work(unit: SimpleNamespace, include_path: bool) -> str:
    """The text fast mode embedded before this work (its `default` style): name and path words,
    then the docstring, then the source."""
    path_words = " ".join(identifier_words(unit.path.removesuffix(".py"))) if include_path else ""
    name_words = " ".join(identifier_words(unit.qualname))
    header = f"{name_words} ({path_words})" if path_words else name_words
    parts = [header, unit.docstring.strip(), unit.code]
    return "\n".join(p for p in parts if p)[:3000]


def _with_context(unit: SimpleNamespace, include_path: bool) -> str:
    """The source after the lines a reader would see around it: class and module summaries."""
    lines = []
    if unit.class_summary:
        lines.append(f"# {unit.class_name}: {unit.class_summary}")
    if unit.module_summary:
        lines.append(f"# module: {unit.module_summary}")
    return "\n".join([*lines, unit.code])[:3000]


def field_text(name: str, include_path: bool) -> Callable[[SimpleNamespace], str]:
    makers: dict[str, Callable[[SimpleNamespace], str]] = {
        "code": code_text,
        "default": lambda u: _before_this_work(u, include_path),
        "header": lambda u: header_text(u, include_path=include_path, context=True, docstring=True),
        "header-plain": lambda u: header_text(u, include_path=include_path, docstring=True),
        "header-nodoc": lambda u: header_text(u, include_path=include_path, context=True),
        "header-bare": lambda u: header_text(u, include_path=include_path),
        "code-context": lambda u: _with_context(u, include_path),
    }
    if name not in makers:
        raise ValueError(f"unknown field {name!r}; known: {', '.join(makers)}")
    return makers[name]
