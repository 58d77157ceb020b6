"""Java: the wheel's tags.scm, plus enums, records, annotation types and constructors."""

from indexing.languages import LanguageSpec

QUERY = """
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method
"""

# What a file imports (search.import_graph).
IMPORTS = (r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)(?:\.\*)?[ \t]*;",)

SPECS = [
    LanguageSpec(
        name="java",
        imports=IMPORTS,
        import_separator=".",
        private_words=("private",),
        extensions=(".java",),
        grammar="tree_sitter_java",
        wheel_tags=("tree_sitter_java",),
        query=QUERY,
        doc_lines=("///",),
    )
]
