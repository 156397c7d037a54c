"""Resolved Lucent types.  Refinements (subranges, ``subtype``, ``x: T | p``) are kept apart
from the structural type, which is what type equality compares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class T:
    kind: str  # bool | int | real | machine | enum | abstract | tuple | array | record
    name: str = ""  # machine: "sint" or "uint"
    items: tuple = ()  # tuple: item types; array: (elem,); record: ((field, type), ...); enum: values
    size: int = 0  # array: its size; machine: the width in bits

    def __str__(self) -> str:
        if self.kind in ("bool", "int", "real"):
            return self.kind
        if self.kind == "machine":  # Kind 2's spelling: int8 is sint<8>
            return f"{self.name}<{self.size}>"
        if self.kind in ("enum", "abstract", "record"):
            return self.name
        if self.kind == "tuple":
            return "[" + ", ".join(map(str, self.items)) + "]"
        if self.kind == "array":
            return f"{self.items[0]}^{self.size}"
        return self.kind


BOOL = T("bool")
INT = T("int")
REAL = T("real")


def machine(signed: bool, width: int) -> T:
    """The machine integer type of ``width`` bits: ``sint<width>`` or ``uint<width>``."""
    return T("machine", "sint" if signed else "uint", size=width)


def signed(t: T) -> bool:
    """Whether ``t`` is a signed machine integer type."""
    return t.kind == "machine" and t.name == "sint"


def tuple_of(items: list[T]) -> T:
    return items[0] if len(items) == 1 else T("tuple", items=tuple(items))


def flat(t: T) -> list[T]:
    """A tuple type's components, flattened (node arguments are matched this way)."""
    if t.kind == "tuple":
        return [x for i in t.items for x in flat(i)]
    return [t]


def leaf_count(t: T) -> int:
    """How many scalar streams a value of type ``t`` is expanded into."""
    if t.kind == "record":
        return sum(leaf_count(ft) for _, ft in t.items)
    if t.kind == "array":
        return t.size * leaf_count(t.items[0])
    if t.kind == "tuple":
        return sum(leaf_count(it) for it in t.items)
    return 1


def numeric(t: T) -> bool:
    return t.kind in ("int", "real")


@dataclass
class Refinement:
    """Constraints a declared type adds: integer bounds and/or a predicate over ``var``, and
    the refinements of its components (``parts``: a record's fields by name, a tuple's items by
    position, every element of an array under ``"*"``)."""

    lo: Any = None
    hi: Any = None
    preds: list[tuple[str, Any]] = field(default_factory=list)  # (bound variable, checked Expr)
    parts: dict[Any, Refinement] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return self.lo is None and self.hi is None and not self.preds and \
            all(p.empty for p in self.parts.values())

    @property
    def kind_name(self) -> str:
        """Kind 2's name for the obligation: ``SubRange`` for bounds alone (components
        included), else ``SubType``."""
        if self.preds or any(p.kind_name == "SubType" for p in self.parts.values()):
            return "SubType"
        return "SubRange"

    def pieces(self) -> list[Refinement]:
        """One refinement per constrained component (its own bounds and predicates, reached
        through ``parts``), in declaration order: Kind 2 makes one obligation of each."""
        out = []
        if self.lo is not None or self.hi is not None or self.preds:
            out.append(Refinement(self.lo, self.hi, list(self.preds)))
        for key, sub in self.parts.items():
            out.extend(Refinement(parts={key: piece}) for piece in sub.pieces())
        return out

    def copy(self) -> Refinement:
        return Refinement(self.lo, self.hi, list(self.preds),
                          {k: v.copy() for k, v in self.parts.items()})


def scalar_paths(t: T, prefix: str = "") -> list[tuple[str, T]]:
    """The scalar leaves of a structured type with their name suffixes
    (``.f`` for fields, ``[i]`` for array elements, ``.%i`` for tuple components)."""
    if t.kind == "record":
        return [p for f, ft in t.items for p in scalar_paths(ft, f"{prefix}.{f}")]
    if t.kind == "array":
        return [p for i in range(t.size) for p in scalar_paths(t.items[0], f"{prefix}[{i}]")]
    if t.kind == "tuple":
        return [p for i, it in enumerate(t.items) for p in scalar_paths(it, f"{prefix}.%{i}")]
    return [(prefix, t)]


def assemble(name: str, t: T, read: Callable[[str, T], Any]) -> Any:
    """Build a structured value (records, arrays, tuples) from its scalar leaves, named by path;
    the simulator reads values with it and the translation creates symbols with it."""
    if t.kind == "record":
        return {f: assemble(f"{name}.{f}", ft, read) for f, ft in t.items}
    if t.kind == "array":
        return [assemble(f"{name}[{i}]", t.items[0], read) for i in range(t.size)]
    if t.kind == "tuple":
        return [assemble(f"{name}.%{i}", it, read) for i, it in enumerate(t.items)]
    return read(name, t)


def leaves(term: Any) -> list[Any]:
    """The scalar leaves of a structured term (records as dicts, arrays and tuples as lists),
    in :func:`assemble`'s order: the inverse of building it."""
    if isinstance(term, dict):
        return [x for v in term.values() for x in leaves(v)]
    if isinstance(term, list):
        return [x for v in term for x in leaves(v)]
    return [term]
