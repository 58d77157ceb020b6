"""Rust: the wheel's tags.scm, plus `impl` blocks as types (their functions are methods:
`Bucket::take`) and traits' function signatures; `///`, `/** */` and `//!` docs."""

from indexing.languages import LanguageSpec

QUERY = """
(impl_item type: (_) @name) @definition.impl
(function_signature_item name: (identifier) @name) @definition.method
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
"""

SPECS = [
    LanguageSpec(
        name="rust",
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
