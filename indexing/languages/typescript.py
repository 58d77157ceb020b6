"""TypeScript and TSX: the JavaScript wheel's tags.scm (TypeScript's grammar extends it), the
TypeScript wheel's own, and ours for what both leave out (classes, enums, type aliases)."""

from indexing.languages import LanguageSpec
from indexing.languages.javascript import DEFINITION_STARTS as JS_STARTS
from indexing.languages.javascript import IMPORTS

QUERY = """
(method_definition name: (_) @name) @definition.method
(class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(type_alias_declaration name: (_) @name) @definition.type
(internal_module name: (_) @name) @definition.module
(function_declaration name: (_) @name) @definition.function
"""
WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration"}
)
# JavaScript's, with `declare` and `abstract`, the type declarations, and typed bindings.
_EXPORT = r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?"
DEFINITION_STARTS = (
    JS_STARTS + "|" + _EXPORT + r"(?:async[ \t]+)?function\b"
    "|" + _EXPORT + r"(?:abstract[ \t]+)?(?:class|interface|enum|namespace|module|type)[ \t]+\w"
    "|" + _EXPORT + r"(?:const|let|var)[ \t]+[\w$]+[ \t]*[:=]"
)
_COMMON = dict(
    imports=IMPORTS,
    grammar="tree_sitter_typescript",
    wheel_tags=("tree_sitter_javascript", "tree_sitter_typescript"),
    query=QUERY,
    wrapper_types=WRAPPERS,
    attached_types=frozenset({"decorator"}),
    doc_lines=("///",),
    definition_starts=DEFINITION_STARTS,
    private_names=r"[_#]",
    private_words=("private",),
    special_names="constructor",
)

SPECS = [
    LanguageSpec(
        name="typescript",
        extensions=(".ts", ".mts", ".cts"),
        interpreters=("deno", "ts-node", "tsx", "bun"),
        modes=("typescript",),
        loader="language_typescript",
        **_COMMON,
    ),
    LanguageSpec(name="tsx", extensions=(".tsx",), loader="language_tsx", **_COMMON),
]
