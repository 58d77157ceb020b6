# ruff: noqa: E501  (import patterns read best one to a line)
"""Rust: the wheel's tags.scm, plus `impl` blocks as types (their functions are methods:
`Bucket::take`) and traits' function signatures; `///`, `/** */` and `//!` docs."""

from indexing.languages import LanguageSpec

QUERY = """
(impl_item type: (_) @name) @definition.impl
(function_signature_item name: (identifier) @name) @definition.method
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
"""

# What a file imports (search.import_graph).
IMPORTS = (
    r"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?use[ \t]+(?:::)?([\w:]+?)(?:::)?(?:\{([\w, \t]+)|;|[ \t]|$)",
    r"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;",
)

SPECS = [
    LanguageSpec(
        name="rust",
        imports=IMPORTS,
        import_separator="::",
        import_roots=("crate", "self", "super"),
        public_words=("pub",),
        no_visibility=("impl", "unsafe impl"),
        extensions=(".rs",),
        grammar="tree_sitter_rust",
        wheel_tags=("tree_sitter_rust",),
        query=QUERY,
        separator="::",
        attached_types=frozenset({"attribute_item"}),
        doc_lines=("///", "//!"),
        module_doc_lines=("//!",),
        module_doc_blocks=("/*!",),
    )
]
