# ruff: noqa: E501  (tree-sitter patterns read best one to a line)
"""Swift: ours (the wheel's tags.scm marks a whole class as a method); `///` and `/** */`."""

from indexing.languages import LanguageSpec

QUERY = """
(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.protocol
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.constructor
(property_declaration (pattern (simple_identifier) @name)) @definition.variable
"""

# What a file imports (search.import_graph).
IMPORTS = (
    r"^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:(?:class|struct|enum|protocol|func|typealias)[ \t]+)?([\w.]+)",
)

SPECS = [
    LanguageSpec(
        name="swift",
        imports=IMPORTS,
        import_separator=".",
        private_words=("private", "fileprivate"),
        extensions=(".swift",),
        grammar="tree_sitter_swift",
        query=QUERY,
        doc_lines=("///",),
    )
]
