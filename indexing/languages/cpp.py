# ruff: noqa: E501  (tree-sitter patterns read best one to a line)
"""C++: ours (see c.py); methods defined out of their class are qualified by it
(`Matrix::transpose`); namespaces qualify nothing. A header's declarations (a function's
prototype at file or namespace level, a method's inside its class) are names the enclosing
block or class binds, so that a name reaches the header that declares it."""

from indexing.languages import LanguageSpec
from indexing.languages.c import EXPORT_MACRO, IMPORTS

_DECLARATORS = """
(function_declarator declarator: (identifier) @name)
(function_declarator declarator: (field_identifier) @name)
(function_declarator declarator: (operator_name) @name)
(function_declarator declarator: (destructor_name) @name)
(function_declarator declarator: (qualified_identifier scope: (_) @scope name: (_) @name))
"""
_FUNCTION = "(function_definition declarator: [{d}]) @definition.function\n"
_POINTER = "(function_definition declarator: (_ declarator: [{d}])) @definition.function\n"

QUERY = (
    _FUNCTION.format(d=_DECLARATORS)
    + _POINTER.format(d=_DECLARATORS)
    + """
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.prototype)
(declaration_list (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.prototype)
(translation_unit (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.prototype)
(declaration_list (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.prototype)
(field_declaration_list (field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.prototype)
(field_declaration_list (field_declaration declarator: (_ declarator: (function_declarator declarator: (field_identifier) @name))) @definition.prototype)
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro
"""
)

SPECS = [
    LanguageSpec(
        name="cpp",
        imports=IMPORTS,
        extensions=(".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"),
        grammar="tree_sitter_cpp",
        query=QUERY,
        separator="::",
        wrapper_types=frozenset({"template_declaration"}),
        doc_lines=("///", "//"),
        doc_blocks=("/*",),
        # A header's opening comment says what its type or module is for (the copyright lines
        # above it are dropped).
        module_doc_lines=("//",),
        module_doc_blocks=("/*",),
        module_preamble=r"#\s*(ifndef|define|pragma\s+once)\b",
        # `class LEVELDB_EXPORT Cache {`, `GIT_EXTERN(int) git_repository_open(...)`.
        parse_blanks=EXPORT_MACRO,
        # A `.h` of a C++ project (classes, namespaces, templates) is read as C++.
        shared_extensions=(".h",),
        content_marker=r"^\s*(class|namespace|template\s*<)\b|\bstd::|^\s*(public|private|protected)\s*:",
    )
]
