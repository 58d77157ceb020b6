"""PowerShell: the wheel has no tags.scm; functions (and filters and workflows), classes with
their methods and enums are the units, `#` comments and `<# ... #>` help blocks above are
docs, and a script's opening help block describes it."""

from indexing.languages import LanguageSpec

QUERY = """
(function_statement (function_name) @name) @definition.function
(class_statement . (simple_name) @name) @definition.class
(class_method_definition (simple_name) @name) @definition.method
(enum_statement . (simple_name) @name) @definition.enum
"""
# `function Name`, `filter Name`, `class Name`, `enum Name`, at any indentation.
DEFINITION_STARTS = r"^[ \t]*(?:function|filter|workflow|class|enum)[ \t]+(?P<function>[\w:.-]+)"

# What a file imports (search.import_graph): dot-sourced scripts and modules.
IMPORTS = (
    r"""^[ \t]*\.[ \t]+['"]?([^\s'";|&]+\.ps1)""",
    r"""(?i)^[ \t]*Import-Module[ \t]+['"]?([^\s'";|&]+)""",  # cmdlets ignore case
)

SPECS = [
    LanguageSpec(
        name="powershell",
        imports=IMPORTS,
        extensions=(".ps1", ".psm1"),
        interpreters=("pwsh", "powershell"),
        modes=("powershell",),
        grammar="tree_sitter_powershell",
        query=QUERY,
        doc_lines=("#",),
        doc_blocks=("<#",),
        module_doc_lines=("#",),
        module_doc_blocks=("<#",),
        definition_starts=DEFINITION_STARTS,
    )
]
