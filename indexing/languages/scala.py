"""Scala: the wheel's tags.scm (its package clauses are no types here); Scaladoc `/** */`."""

from indexing.languages import LanguageSpec

# What a file imports (search.import_graph).
IMPORTS = (r"^[ \t]*import[ \t]+([\w.]+?)\.?(?:\{([\w, \t]+)|_|\*|$|[ \t])",)

SPECS = [
    LanguageSpec(
        name="scala",
        imports=IMPORTS,
        import_separator=".",
        private_words=("private",),
        extensions=(".scala", ".sc"),
        grammar="tree_sitter_scala",
        wheel_tags=("tree_sitter_scala",),
        ignore_types=frozenset({"package_clause", "class_parameter"}),
    )
]
