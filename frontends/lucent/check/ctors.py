"""The constructors of a datatype declaration, checked and resolved: shared by plain
(``datatypes``), recursive (``recursive``) and polymorphic (``polytypes``) datatypes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import Refinement, Variant

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker


def check_names(checker: Checker, te: A.TypeExpr) -> None:
    """Refuse a constructor's name declared twice (as a constructor, constant, enumeration
    value or node)."""
    seen: set[str] = set()
    for ctor, _, pos in te.args:
        if ctor in seen or ctor in checker.ctors or ctor in checker.poly_ctors or \
                ctor in checker.enum_values or ctor in checker.const_names or \
                ctor in checker.decls:
            raise checker.err(f"'{ctor}' is declared twice", pos)
        seen.add(ctor)


def constructors(checker: Checker, te: A.TypeExpr, name: str) -> tuple[tuple, Refinement]:
    """The constructors of ``datatype name = …`` with their resolved fields (under the
    checker's current type parameters, for an instance ``name<…>`` of a polymorphic datatype),
    and the refinements of the fields, each owed only by a value of its constructor."""
    ctors = []
    parts: dict[Variant, Refinement] = {}
    name = name.split("<", 1)[0]
    for ctor, fields, pos in te.args:
        names = [f for f, _ in fields]
        twice = [f for i, f in enumerate(names) if f in names[:i]]
        if twice:
            raise checker.err(f"field '{twice[0]}' is declared twice in constructor '{ctor}'",
                              pos)
        resolved = []
        for f, fte in fields:
            ft, ref = checker.resolve_type(fte)
            if not ref.empty:
                parts[Variant(len(ctors), f"{ctor}.{f}")] = ref
            resolved.append((f, ft))
        ctors.append((ctor, tuple(resolved)))
    return tuple(ctors), Refinement(parts=parts)
