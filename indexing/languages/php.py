# ruff: noqa: E501  (import patterns read best one to a line)
"""PHP: the wheel's tags.scm (namespaces qualify nothing), plus enums; `Foo::bar` qualnames."""

from indexing.languages import LanguageSpec

QUERY = """
(enum_declaration name: (name) @name) @definition.enum
(const_element (name) @name) @definition.constant
"""

# What a file imports (search.import_graph).
IMPORTS = (
    r"^[ \t]*use[ \t]+(?:function[ \t]+|const[ \t]+)?\\?([\w\\]+)",
    r"""\b(?:require|include)(?:_once)?[ \t]*\(?[ \t]*(?:__DIR__[ \t]*\.[ \t]*)?['"]/?([^'"\n]+)['"]""",
)

SPECS = [
    LanguageSpec(
        name="php",
        imports=IMPORTS,
        import_separator="\\",
        private_words=("private",),
        special_names=r"__\w+",
        extensions=(".php", ".phtml", ".php5", ".php7", ".phpt"),
        interpreters=("php",),
        modes=("php",),
        grammar="tree_sitter_php",
        loader="language_php",
        wheel_tags=("tree_sitter_php",),
        query=QUERY,
        separator="::",
        ignore_types=frozenset({"namespace_definition", "property_declaration"}),
        attached_types=frozenset({"attribute_list"}),
        doc_lines=("///",),
    )
]
