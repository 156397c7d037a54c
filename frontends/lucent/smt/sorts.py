"""The SMT sort of a scalar leaf of a Lucent type (a recursive datatype's excepted: its
native sort is declared in an environment, see ``translate.smt_type``)."""

from __future__ import annotations

from typing import Any

from pysmt.typing import BOOL as SBOOL
from pysmt.typing import INT as SINT
from pysmt.typing import REAL as SREAL
from pysmt.typing import ArrayType

from kinduct.frontends.lucent.core.types import T, recursive_type, scalar_paths
from kinduct.frontends.lucent.smt import machine

#: The sorts of the plainest leaf kinds (an enumeration is encoded by its constants' indices),
#: which no recursive datatype has: read first, a 1 MB model has 55,000 leaves.
PLAIN_SORTS: dict[str, Any] = {"bool": SBOOL, "int": SINT, "real": SREAL, "enum": SINT}


def scalar_sort(t: T) -> Any:
    """The SMT sort of a scalar leaf of type ``t``; a recursive datatype's needs its
    environment (``translate.smt_type``) and is refused here."""
    plain = PLAIN_SORTS.get(t.kind)
    if plain is not None:
        return plain
    if recursive_type(t):
        raise TypeError(f"the sort of the recursive datatype {t} needs its environment")
    if t.kind == "bool":
        return SBOOL
    if t.kind == "real":
        return SREAL
    if t.kind == "machine":
        return machine.smt_type(t)
    if t.kind in ("set", "lift"):
        return collection_sort(t)
    if t.kind == "ilift":
        return ilift_sort(t)
    return SINT


def collection_sort(t: T) -> Any:
    """The SMT sort of a ``set`` or ``lift`` leaf: arrays curried over the key's leaves."""
    elem = SBOOL if t.kind == "set" else scalar_sort(t.items[1])
    for _, lt in reversed(scalar_paths(t.items[0])):
        elem = ArrayType(scalar_sort(lt), elem)
    return elem


def ilift_sort(t: T) -> Any:
    """The SMT sort of an ``ilift`` leaf: an array from the indices."""
    return ArrayType(SINT, scalar_sort(t.items[0]))
