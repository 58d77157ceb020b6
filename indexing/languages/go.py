"""Go: the wheel's tags.scm; methods are qualified by their receiver's type (`Router.Handle`),
and the `//` comments right above a declaration are its doc (the package comment the file's)."""

from indexing.languages import LanguageSpec

QUERY = """
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method
(const_spec name: (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable
"""

# What a file imports (search.import_graph).
IMPORTS = (
    r'^[ \t]*import[ \t]+(?:[\w.]+[ \t]+)?"([^"\n]+)"',
    r'^[ \t]*(?:[\w.]+[ \t]+)?"([^"\n]+)"[ \t]*$',
)

SPECS = [
    LanguageSpec(
        name="go",
        imports=IMPORTS,
        private_names="[a-z_]",
        extensions=(".go",),
        grammar="tree_sitter_go",
        wheel_tags=("tree_sitter_go",),
        query=QUERY,
        wrapper_types=frozenset({"type_declaration"}),
        doc_lines=("//",),
        doc_blocks=("/*",),
        module_doc_lines=("//",),
        module_doc_blocks=("/*",),
    )
]
