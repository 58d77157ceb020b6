"""C++: ours (see c.py); methods defined out of their class are qualified by it
(`Matrix::transpose`); namespaces qualify nothing."""

from indexing.languages import LanguageSpec

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
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
"""
)

SPECS = [
    LanguageSpec(
        name="cpp",
        extensions=(".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"),
        grammar="tree_sitter_cpp",
        query=QUERY,
        separator="::",
        wrapper_types=frozenset({"template_declaration"}),
        doc_lines=("///", "//"),
        doc_blocks=("/*",),
        module_doc_blocks=(),
    )
]
