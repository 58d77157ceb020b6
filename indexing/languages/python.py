"""Python: registered for lookup only; parsed by its own walker (indexing.python_units)."""

from indexing.languages import LanguageSpec

# What a file imports (search.import_graph).
IMPORTS = (
    r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?[ \t]*([\w, \t]+)",
    r"^[ \t]*import[ \t]+([\w.]+)",
)

SPECS = [
    LanguageSpec(
        name="python",
        imports=IMPORTS,
        import_separator=".",
        private_names=r"_(?!_)",
        special_names=r"__.*__",
        extensions=(".py", ".pyi"),
        grammar="tree_sitter_python",
        doc_lines=("#",),
        interpreters=("python", "pypy"),
        modes=("python",),
    )
]
