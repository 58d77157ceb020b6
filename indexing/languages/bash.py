"""Bash and sh: the wheel has no tags.scm; functions are the units, `#` comments above docs,
and a comment under the shebang describes the script."""

from indexing.languages import LanguageSpec

QUERY = """
(function_definition name: (word) @name) @definition.function
(variable_assignment name: (variable_name) @name) @definition.variable
"""
# `name()`, `function name`, `function name()`, at any indentation.
DEFINITION_STARTS = (
    r"^[ \t]*(?:function[ \t]+(?P<function>[\w:.@+-]+)"
    r"|(?P<function2>[\w:.@+-]+)[ \t]*\([ \t]*\))"
)

# What a file imports (search.import_graph).
IMPORTS = (r"""^[ \t]*(?:source|\.)[ \t]+['"]?([^\s'";|&]+)""",)

SPECS = [
    LanguageSpec(
        name="bash",
        imports=IMPORTS,
        private_names="_",
        extensions=(".sh", ".bash", ".zsh", ".ksh"),
        filenames=(".bashrc", ".bash_profile", ".profile", ".zshrc"),
        interpreters=("bash", "sh", "zsh", "ksh", "dash", "ash"),
        modes=("shell-script", "sh", "bash", "zsh", "ksh"),
        grammar="tree_sitter_bash",
        query=QUERY,
        doc_lines=("#",),
        doc_blocks=(),
        module_doc_lines=("#",),
        module_doc_blocks=(),
        definition_starts=DEFINITION_STARTS,
    )
]
