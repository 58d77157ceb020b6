"""Elixir: ours. `defmodule` is a type, `def`/`defp`/`defmacro` clauses of one name and arity
are one unit named with the arity (`Shop.Stock.reserve/3`); `@doc` and `@moduledoc` are the
docs, `@spec`/`@impl` lines above a clause belong to it."""

from indexing.languages import LanguageSpec

# py-tree-sitter applies #match? but not #any-of?: the keyword lists are regular expressions.
_DEFS = "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$"
QUERY = f"""
(call target: (identifier) @keyword (arguments (alias) @name)
  (#match? @keyword "^(defmodule|defprotocol|defimpl)$")) @definition.module
(call target: (identifier) @keyword
  (arguments [(identifier) @name
              (call target: (identifier) @name (arguments)? @arguments)
              (binary_operator left: (call target: (identifier) @name (arguments)? @arguments)
                               operator: "when")])
  (#match? @keyword "{_DEFS}")) @definition.function
"""

# What a file imports (search.import_graph).
IMPORTS = (r"^[ \t]*(?:alias|import|use|require)[ \t]+([\w.]+?)\.?(?:\{([\w, \t]+)|,|[ \t]|$)",)

SPECS = [
    LanguageSpec(
        name="elixir",
        imports=IMPORTS,
        import_separator=".",
        private_words=("defp", "defmacrop"),
        extensions=(".ex", ".exs"),
        interpreters=("elixir",),
        modes=("elixir",),
        grammar="tree_sitter_elixir",
        query=QUERY,
        attached_prefixes=("@spec", "@impl", "@decorate", "@deprecated"),
        doc_lines=("#",),
        doc_blocks=(),
        doc_attributes=("@doc",),
        body_doc_attributes=("@moduledoc",),
        module_doc_blocks=(),
        merge_clauses=True,
        arity_suffix=True,
    )
]
