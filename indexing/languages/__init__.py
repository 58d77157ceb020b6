"""Code languages: one `LanguageSpec` of data per language, and the registry.

Every language is parsed by one language-neutral routine (`indexing.code_units`) driven by
this data: the grammar wheel to load, a tags.scm-style definition query (the wheel's own
`queries/tags.scm`, read from the installed package at run time, extended or replaced by a
query of our own), which definition captures are types, the qualname separator and the doc
comment rules. Adding a language means adding one small module here and listing it below.

Query captures the extractor reads (the tags.scm conventions, plus two of our own):
- `@definition.<kind>` the definition node; `<kind>` in `TYPE_KINDS` makes a class unit (its
  definitions inside are methods), in `FUNCTION_KINDS` a function or method, any other kind
  (constant, variable, field...) names what a module block defines;
- `@name` its name; `@scope` (ours) the type a definition belongs to when it is written outside
  it (a Go receiver, C++ `Foo::bar`, Lua `Timer.new`); `@arguments` (ours) the parameter node
  whose count makes an Elixir-style arity suffix (`map/2`).

`definition_starts` says where a definition may begin on a line: where a syntax error throws
the grammar off for a stretch of the file, that stretch is parsed again in pieces split there.

Python is registered too (`python`, `.py`/`.pyi`) but keeps its own parser (indexing.parsing).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath

from tree_sitter import Language

TYPE_KINDS = frozenset(
    {
        "class",
        "interface",
        "module",
        "type",
        "enum",
        "object",
        "struct",
        "trait",
        "impl",
        "protocol",
        "union",
    }
)
FUNCTION_KINDS = frozenset({"function", "method", "macro", "constructor"})


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]  # with the dot, lower case
    grammar: str  # the grammar wheel's package, e.g. "tree_sitter_go"
    loader: str = "language"  # the function in it that returns the language pointer
    filenames: tuple[str, ...] = ()  # exact file names (`Rakefile`)
    # How a file with no extension says it is in this language: its shebang's interpreter
    # (`#!/usr/bin/env bash`) or an editor's mode line (`-*- shell-script -*-`, `vim: ft=sh`).
    interpreters: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    # Extensions another language owns that a file of this one may carry too, and what its
    # first bytes show when it does: a `.h` holding `class` or `namespace` is C++, not C.
    shared_extensions: tuple[str, ...] = ()
    content_marker: str = ""  # a regular expression (multi-line) over the file's first 8 KB
    wheel_tags: tuple[str, ...] = ()  # grammar packages whose queries/tags.scm to use
    query: str = ""  # our own patterns, added after the wheel's
    separator: str = "."
    ignore_types: frozenset[str] = frozenset()  # definition node types to drop (namespaces)
    # Parents that wrap a definition and belong to its span (`export`, `template<...>`).
    wrapper_types: frozenset[str] = frozenset()
    # Siblings just above a definition that belong to it (attributes, signatures, @spec).
    attached_types: frozenset[str] = frozenset()
    attached_prefixes: tuple[str, ...] = ()  # ...or whose text starts so (`@spec`, `@impl`)
    # Doc comments: lines right above the definition starting with one of these (after
    # indentation), or block comments opened with one of `doc_blocks`.
    doc_lines: tuple[str, ...] = ()
    doc_blocks: tuple[str, ...] = ("/**",)
    doc_attributes: tuple[str, ...] = ()  # a sibling attribute holding the doc (`@doc`)
    body_doc_attributes: tuple[str, ...] = ()  # first statement of a type's body (`@moduledoc`)
    # A file-level comment at the top that describes the file (`//!`, a Go package comment).
    module_doc_lines: tuple[str, ...] = ()
    module_doc_blocks: tuple[str, ...] = ("/**",)
    # Lines a file may open with before its leading doc comment (a C header's include guard).
    module_preamble: str = ""
    # Text the grammar cannot place, blanked before parsing (group 1 of the expression, spaces
    # of the same length): C and C++ export macros (`class LEVELDB_EXPORT Cache`).
    parse_blanks: str = ""
    merge_clauses: bool = False  # adjacent same-name definitions are one unit (Haskell, Elixir)
    arity_suffix: bool = False  # name/arity (Elixir)
    # Where a definition may start, as a regular expression over lines (multi-line mode): a
    # file the grammar cannot parse whole is parsed again piece by piece around its syntax
    # errors, split where this matches (see indexing.parse_recovery). Empty: no recovery.
    definition_starts: str = ""
    comment_types: frozenset[str] = frozenset({"comment", "line_comment", "block_comment"})
    # What the learned ranker reads as "internal" and as "special" (Python's `_helper` and
    # `__init__`), in each language's own terms: a name convention (a regular expression the
    # name starts with: Go's lower case, JavaScript's `#`), a word written before the name
    # (`private`, C's `static`, Elixir's `defp`), or the absence of every public word (Rust's
    # and Zig's `pub`); special names are the ones the language calls itself (constructors,
    # magic and meta methods).
    private_names: str = ""
    # What a file imports (`search.import_graph`): regular expressions, multi-line, whose first
    # group is an import target as written (`a.b`, `../util`, `crate::io`) and whose second
    # group, where there is one, the names taken from it (`from a import b, c`); the separator
    # the target's parts are written with; and leading parts that name no folder (`crate`).
    imports: tuple[str, ...] = ()
    import_separator: str = "/"
    import_roots: tuple[str, ...] = ()
    private_words: tuple[str, ...] = ()
    public_words: tuple[str, ...] = ()
    no_visibility: tuple[str, ...] = ()  # signatures opening so carry none (Rust's `impl`)
    special_names: str = ""
    # Types declared in doc comments rather than code (LuaLS `---@class Gitsigns.GitContext`,
    # JSDoc `@typedef {Object} Options`): a regular expression over a line, group 1 the
    # declared name. The unit holding the line defines the name, as it defines its own.
    annotated_types: str = ""
    # Files that by the language's convention hold an interface its implementation mirrors
    # (C#'s `IRouteFinder.cs` beside `RouteFinder.cs`): a regular expression over the file name.
    interface_files: str = ""

    def is_private(self, name: str, signature: str) -> bool:
        if self.private_names and re.match(self.private_names, name):
            return True
        if not (self.private_words or self.public_words):
            return False
        before = set(re.findall(r"\w+", signature.split(name, 1)[0])) if name else set()
        if self.public_words and not before & set(self.public_words):
            return not signature.startswith(self.no_visibility)
        return bool(before & set(self.private_words))

    def is_special(self, name: str) -> bool:
        return bool(self.special_names) and re.fullmatch(self.special_names, name) is not None

    def language(self) -> Language:
        return _language(self.grammar, self.loader)

    def query_text(self) -> str:
        parts = [_wheel_tags(grammar) for grammar in self.wheel_tags]
        return "\n".join([*parts, self.query])


@cache
def _language(grammar: str, loader: str) -> Language:
    return Language(getattr(importlib.import_module(grammar), loader)())


@cache
def _wheel_tags(grammar: str) -> str:
    """The installed grammar wheel's own `queries/tags.scm` (read in place, never copied)."""
    package = importlib.import_module(grammar)
    return (Path(package.__file__).parent / "queries" / "tags.scm").read_text(encoding="utf-8")


def _specs() -> list[LanguageSpec]:
    from indexing.languages import (
        bash,
        c,
        cpp,
        csharp,
        elixir,
        go,
        haskell,
        java,
        javascript,
        kotlin,
        lua,
        php,
        powershell,
        python,
        ruby,
        rust,
        scala,
        swift,
        typescript,
        zig,
    )

    modules = (python, javascript, typescript, go, java, kotlin, scala, csharp, php, ruby, rust)
    modules += (swift, c, cpp, elixir, haskell, lua, bash, powershell, zig)
    return [spec for module in modules for spec in module.SPECS]


@dataclass
class _Registry:
    by_name: dict[str, LanguageSpec] = field(default_factory=dict)
    by_extension: dict[str, LanguageSpec] = field(default_factory=dict)
    by_filename: dict[str, LanguageSpec] = field(default_factory=dict)
    by_interpreter: dict[str, LanguageSpec] = field(default_factory=dict)
    by_mode: dict[str, LanguageSpec] = field(default_factory=dict)
    # Languages that may claim a file of another's extension by its content, with their marker.
    claimants: dict[str, list[tuple[LanguageSpec, re.Pattern[bytes]]]] = field(default_factory=dict)


@cache
def _registry() -> _Registry:
    registry = _Registry()
    for spec in _specs():
        registry.by_name[spec.name] = spec
        for extension in spec.extensions:
            registry.by_extension[extension] = spec
        for filename in spec.filenames:
            registry.by_filename[filename] = spec
        for interpreter in spec.interpreters:
            registry.by_interpreter[interpreter] = spec
        for mode in spec.modes:
            registry.by_mode[mode] = spec
        for extension in spec.shared_extensions:
            marker = re.compile(spec.content_marker.encode(), re.MULTILINE)
            registry.claimants.setdefault(extension, []).append((spec, marker))
    return registry


def language_for_path(path: str, head: bytes = b"") -> LanguageSpec | None:
    """The code language of a file, by its exact name or its extension (`.h` is C, unless its
    start shows C++: `head` is read for a language's `content_marker`); a file with no
    extension by its first lines (`head`), where a shebang or an editor's mode line names it:
    scripts (`bin/deploy`) and sourced shell libraries rarely carry an extension."""
    name = PurePosixPath(path).name
    registry = _registry()
    spec = registry.by_filename.get(name)
    if spec is not None:
        return spec
    suffix = PurePosixPath(name.lower()).suffix
    if suffix:
        for spec, marker in registry.claimants.get(suffix, ()):
            if head and marker.search(head[:CLAIM_BYTES]):
                return spec
        return registry.by_extension.get(suffix)
    return language_for_content(head) if head else None


# How much of a file's start a language's content marker is looked for in.
CLAIM_BYTES = 8192


SNIFF_LINES = 3
_SHEBANG = re.compile(rb"^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")
_EMACS_MODE = re.compile(rb"-\*-\s*(?:mode:\s*)?([\w+-]+)\s*(?:;.*)?-\*-", re.I)
_VIM_MODE = re.compile(rb"\b(?:vim?|ex):.*\b(?:ft|filetype)=([\w+-]+)")


def language_for_content(head: bytes) -> LanguageSpec | None:
    """The language a file's first lines name: the shebang's interpreter (through `env`, and
    with its version stripped: `python3.11` is python), else an Emacs or vim mode line."""
    registry = _registry()
    lines = head.split(b"\n", SNIFF_LINES)[:SNIFF_LINES]
    shebang = _SHEBANG.match(lines[0]) if lines else None
    if shebang is not None:
        program = shebang.group(1).rsplit(b"/", 1)[-1]
        if program == b"env" and shebang.group(2):
            program = shebang.group(2).rsplit(b"/", 1)[-1]
        interpreter = re.sub(rb"[\d.]+$", b"", program).decode("ascii", "replace")
        return registry.by_interpreter.get(interpreter)
    for line in lines:
        mode = _EMACS_MODE.search(line) or _VIM_MODE.search(line)
        if mode is not None:
            return registry.by_mode.get(mode.group(1).decode("ascii", "replace").lower())
    return None


def language_named(name: str) -> LanguageSpec | None:
    return _registry().by_name.get(name)


# Every code language's name, in the order of registration (search's language filter lists them).
CODE_LANGUAGES = tuple(_registry().by_name)
