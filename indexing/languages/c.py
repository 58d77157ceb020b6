# ruff: noqa: E501  (tree-sitter patterns read best one to a line)
"""C (`.c` and `.h`): ours (the wheel's tags.scm marks the declarator, not the definition,
and counts prototypes); the comment right above a definition is its doc."""

from indexing.languages import LanguageSpec

# An export or visibility macro before a type's name or at a declaration's start.
EXPORT_MACRO = r"(?:\b(?:class|struct|union|enum)\s+|^)([A-Z][A-Z0-9_]*_(?:EXPORT|API|DLL|PUBLIC|EXTERN|DECL|VISIBLE)[A-Z0-9_]*(?:\([^)\n]*\))?)\s"

QUERY = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.prototype)
(preproc_function_def name: (identifier) @name) @definition.macro
"""

# What a file imports (search.import_graph).
IMPORTS = (r'^[ \t]*#[ \t]*include[ \t]*["<]([^">\n]+)[">]',)

SPECS = [
    LanguageSpec(
        name="c",
        imports=IMPORTS,
        private_words=("static",),
        extensions=(".c", ".h"),
        grammar="tree_sitter_c",
        query=QUERY,
        doc_lines=("///", "//"),
        doc_blocks=("/*",),
        module_doc_lines=("//",),
        module_doc_blocks=("/*",),
        module_preamble=r"#\s*(ifndef|define|pragma\s+once)\b",
        # `class LEVELDB_EXPORT Cache {`, `GIT_EXTERN(int) git_repository_open(...)`.
        parse_blanks=EXPORT_MACRO,
    )
]
