"""C#: the wheel ships no queries; ours. `///` XML doc comments (tags dropped from the text);
namespaces qualify nothing, as Java packages do not."""

from indexing.languages import LanguageSpec

QUERY = """
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(local_function_statement name: (identifier) @name) @definition.function
"""

# What a file imports (search.import_graph).
IMPORTS = (r"^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?([\w.]+)[ \t]*;",)

SPECS = [
    LanguageSpec(
        name="csharp",
        imports=IMPORTS,
        import_separator=".",
        private_words=("private",),
        extensions=(".cs",),
        interface_files=r"I[A-Z][a-z]\w*\.cs",
        grammar="tree_sitter_c_sharp",
        query=QUERY,
        attached_types=frozenset({"attribute_list"}),
        doc_lines=("///",),
    )
]
