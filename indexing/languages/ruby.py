"""Ruby: the wheel's tags.scm; `#` comments above a definition are its doc. Methods are
qualified with `.` (`Slugger.unique_slug`), instance and singleton methods alike, like the other
languages here."""

from indexing.languages import LanguageSpec

# What a file imports (search.import_graph).
IMPORTS = (r"""^[ \t]*(?:require|require_relative|load)[ \t]*\(?[ \t]*['"]([^'"\n]+)['"]""",)

SPECS = [
    LanguageSpec(
        name="ruby",
        imports=IMPORTS,
        special_names=r"initialize|method_missing|respond_to_missing\?|to_s|inspect|<=>|==",
        extensions=(".rb", ".rake", ".gemspec", ".ru"),
        filenames=("Rakefile", "Gemfile", "Guardfile", "Vagrantfile"),
        interpreters=("ruby", "jruby"),
        modes=("ruby",),
        grammar="tree_sitter_ruby",
        wheel_tags=("tree_sitter_ruby",),
        doc_lines=("#",),
        doc_blocks=(),
        module_doc_lines=("#",),
        module_doc_blocks=(),
    )
]
