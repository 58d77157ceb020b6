"""JavaScript: the wheel's tags.scm, plus constructors (it leaves them out) and JSDoc."""

from indexing.languages import LanguageSpec

QUERY = """
(method_definition name: (_) @name) @definition.method
(class_declaration name: (_) @name) @definition.class
"""
WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
# A function, a class, or a binding (`const handler = ...`) opening a line, exported or not.
_EXPORT = r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?"
DEFINITION_STARTS = (
    _EXPORT + r"(?:async[ \t]+)?function\b"
    "|" + _EXPORT + r"class\b"
    "|" + _EXPORT + r"(?:const|let|var)[ \t]+[\w$]+[ \t]*="
)

# JSDoc's types declared in comments: `@typedef {Object} CartLine`, `@callback OnChange`.
ANNOTATED_TYPES = r"^\s*(?:/\*\*|\*)?\s*@(?:typedef|callback)\s+(?:\{.*\}\s*)?([A-Za-z_$][\w$.]*)"

# What a file imports (search.import_graph).
IMPORTS = (
    r"""\b(?:import|export)\b[^'";]*?\bfrom[ \t]*['"]([^'"\n]+)['"]""",
    r"""\bimport[ \t]*\(?[ \t]*['"]([^'"\n]+)['"]""",
    r"""\brequire[ \t]*\([ \t]*['"]([^'"\n]+)['"]""",
)

SPECS = [
    LanguageSpec(
        name="javascript",
        imports=IMPORTS,
        private_names=r"[_#]",
        special_names="constructor",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        interpreters=("node", "nodejs"),
        modes=("js", "javascript"),
        grammar="tree_sitter_javascript",
        wheel_tags=("tree_sitter_javascript",),
        query=QUERY,
        wrapper_types=WRAPPERS,
        attached_types=frozenset({"decorator"}),
        doc_lines=("///",),
        module_doc_blocks=("/**",),
        definition_starts=DEFINITION_STARTS,
        annotated_types=ANNOTATED_TYPES,
    )
]
