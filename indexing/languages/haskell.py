"""Haskell: the wheel has no tags.scm; ours. Equations of one function are one unit with its
type signature; `-- |` Haddock comments are docs; classes and instances are types."""

from indexing.languages import LanguageSpec

QUERY = """
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
(class_declarations (signature name: (variable) @name) @definition.method)
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(class name: (name) @name) @definition.class
(instance name: (name) @name) @definition.class
"""

# What a file imports (search.import_graph).
IMPORTS = (r'^[ \t]*import[ \t]+(?:safe[ \t]+)?(?:qualified[ \t]+)?(?:"[^"\n]*"[ \t]+)?([\w.]+)',)

SPECS = [
    LanguageSpec(
        name="haskell",
        imports=IMPORTS,
        import_separator=".",
        extensions=(".hs", ".lhs"),
        grammar="tree_sitter_haskell",
        query=QUERY,
        attached_types=frozenset({"signature"}),
        doc_lines=("-- |", "--|", "-- ^"),
        doc_blocks=("{-|",),
        module_doc_lines=("-- |", "--|"),
        module_doc_blocks=("{-|", "{- |"),
        merge_clauses=True,
        comment_types=frozenset({"comment", "haddock"}),
    )
]
