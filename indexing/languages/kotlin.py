"""Kotlin: the wheel ships no queries; ours. KDoc `/** */` comments."""

from indexing.languages import LanguageSpec

QUERY = """
(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.object
(companion_object) @definition.object
(function_declaration name: (_) @name) @definition.function
(secondary_constructor) @definition.constructor
(property_declaration (variable_declaration (identifier) @name)) @definition.variable
"""

# What a file imports (search.import_graph).
IMPORTS = (r"^[ \t]*import[ \t]+([\w.]+)",)

SPECS = [
    LanguageSpec(
        name="kotlin",
        imports=IMPORTS,
        import_separator=".",
        private_words=("private",),
        extensions=(".kt", ".kts"),
        grammar="tree_sitter_kotlin",
        query=QUERY,
        doc_lines=("///",),
    )
]
