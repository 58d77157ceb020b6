"""A generation's definitions by name, in memory: what the definitions stream (S7) asks of every
query that names code, without a database query each time.

Built once per generation (one query of every unit's name, kind, qualname, the names it binds,
path and language) and kept beside the generation's lexical index: a unit's row never changes
once written, so the index is good for as long as its generation is.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from indexing.lexical import GenerationCache
from indexing.models import CodeUnit, IndexRun


@dataclass(frozen=True)
class NamedUnit:
    """What the definitions stream reads of a unit (the shape rules' `ShapedUnit`)."""

    pk: int
    kind: str
    name: str
    qualname: str
    defines: tuple[str, ...]
    path: str
    language: str
    docstring: str = ""


class NameIndex:
    def __init__(self, units: list[NamedUnit]) -> None:
        self.units = units
        self.by_name: dict[str, list[NamedUnit]] = defaultdict(list)
        self.by_bare: dict[str, list[NamedUnit]] = defaultdict(list)  # `map/2` under `map`
        self.by_defined: dict[str, list[NamedUnit]] = defaultdict(list)  # module blocks
        for unit in units:
            self.by_name[unit.name].append(unit)
            if "/" in unit.name:
                self.by_bare[unit.name.split("/", 1)[0]].append(unit)
            if unit.kind == CodeUnit.Kind.MODULE:
                for defined in unit.defines:
                    self.by_defined[defined.lower()].append(unit)

    def lookup(self, names: list[str], variants, dotted: str = "") -> list[NamedUnit]:
        """The units named one of `names` (in any of its `variants` spellings), defined under
        one of them with an arity, module blocks binding one, and the unit named `dotted`."""
        found: dict[int, NamedUnit] = {}
        for name in names:
            for variant in variants(name):
                for unit in self.by_name.get(variant, ()):
                    found[unit.pk] = unit
            if "/" not in name:
                for unit in self.by_bare.get(name, ()):
                    found[unit.pk] = unit
            for unit in self.by_defined.get(name.lower(), ()):
                found[unit.pk] = unit
        if dotted:
            for unit in self.by_name.get(dotted, ()):
                found[unit.pk] = unit
        return list(found.values())


_indexes: GenerationCache[NameIndex] = GenerationCache()


def name_index(run: IndexRun) -> NameIndex:
    return _indexes.get(run, lambda key: _build(run))


def _build(run: IndexRun) -> NameIndex:
    rows = CodeUnit.objects.filter(file_version__runs=run).values_list(
        "pk", "kind", "name", "qualname", "defines", "path", "language"
    )
    return NameIndex(
        [
            NamedUnit(pk, kind, name, qualname, tuple(defines or ()), path, language)
            for pk, kind, name, qualname, defines, path, language in rows
        ]
    )
