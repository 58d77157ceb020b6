# ruff: noqa: E501  (tree-sitter patterns read best one to a line)
"""Lua: the wheel's tags.scm, plus the table a function is defined on (`Timer.new`,
`Timer:expired` are methods of `Timer`) and the names an assignment binds (`utils.string_lambda =
utils.memoize(...)`, `local delims = {...}`) for module blocks; `---` and `--` comments above are
docs."""

from indexing.languages import LanguageSpec

QUERY = """
(function_declaration name: (dot_index_expression table: (_) @scope field: (identifier) @name)) @definition.method
(function_declaration name: (method_index_expression table: (_) @scope method: (identifier) @name)) @definition.method
(assignment_statement (variable_list . name: [(identifier) @name (dot_index_expression field: (identifier) @name)])) @definition.variable
"""

# LuaLS annotations: `---@class (exact) Gitsigns.GitContext : Parent`, `---@alias Mode string`.
ANNOTATED_TYPES = r"^\s*---\s*@(?:class|alias|enum)\s+(?:\(\w+\)\s*)?([A-Za-z_][\w.]*)"

# What a file imports (search.import_graph).
IMPORTS = (r"""\brequire[ \t]*\(?[ \t]*['"]([^'"\n]+)['"]""",)

SPECS = [
    LanguageSpec(
        name="lua",
        imports=IMPORTS,
        import_separator=".",
        private_names="_",
        special_names=r"__\w+",
        extensions=(".lua",),
        interpreters=("lua", "luajit"),
        modes=("lua",),
        grammar="tree_sitter_lua",
        wheel_tags=("tree_sitter_lua",),
        query=QUERY,
        doc_lines=("--",),
        doc_blocks=("--[[",),
        module_doc_lines=("---",),
        module_doc_blocks=("--[[",),
        annotated_types=ANNOTATED_TYPES,
    )
]
