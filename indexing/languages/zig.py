# ruff: noqa: E501  (tree-sitter patterns read best one to a line)
"""Zig: the wheel has no tags.scm; ours. `const Name = struct {...}` is a type, `///` docs
and `//!` the file's."""

from indexing.languages import LanguageSpec

QUERY = """
(variable_declaration (identifier) @name
  [(struct_declaration) (enum_declaration) (union_declaration) (opaque_declaration)]) @definition.struct
(function_declaration name: (identifier) @name) @definition.function
(test_declaration) @definition.function
(variable_declaration (identifier) @name) @definition.constant
"""

# What a file imports (search.import_graph).
IMPORTS = (r'@import\([ \t]*"([^"\n]+)"[ \t]*\)',)

SPECS = [
    LanguageSpec(
        name="zig",
        imports=IMPORTS,
        public_words=("pub",),
        extensions=(".zig",),
        grammar="tree_sitter_zig",
        query=QUERY,
        doc_lines=("///",),
        doc_blocks=(),
        module_doc_lines=("//!",),
        module_doc_blocks=(),
    )
]
