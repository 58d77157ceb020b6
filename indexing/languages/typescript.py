"""TypeScript and TSX: the JavaScript wheel's tags.scm (TypeScript's grammar extends it), the
TypeScript wheel's own, and ours for what both leave out (classes, enums, type aliases)."""

from indexing.languages import LanguageSpec

QUERY = """
(method_definition name: (_) @name) @definition.method
(class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(type_alias_declaration name: (_) @name) @definition.type
(internal_module name: (_) @name) @definition.module
(function_declaration name: (_) @name) @definition.function
(call_expression function: (identifier) @name) @reference.call
"""
WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration"}
)
_COMMON = dict(
    grammar="tree_sitter_typescript",
    wheel_tags=("tree_sitter_javascript", "tree_sitter_typescript"),
    query=QUERY,
    wrapper_types=WRAPPERS,
    attached_types=frozenset({"decorator"}),
    doc_lines=("///",),
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
