"""Python: registered for lookup only; parsed by its own walker (indexing.python_units)."""

from indexing.languages import LanguageSpec

SPECS = [
    LanguageSpec(
        name="python",
        private_names=r"_(?!_)",
        special_names=r"__.*__",
        extensions=(".py", ".pyi"),
        grammar="tree_sitter_python",
        doc_lines=("#",),
        interpreters=("python", "pypy"),
        modes=("python",),
    )
]
