"""Resolved Lucent types.  Refinements (subranges, ``subtype``, ``x: T | p``) are kept apart
from the structural type, which is what type equality compares."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class T:
    #: bool | int | real | machine | enum | abstract | tuple | array | record | adt | typevar
    #: | set | map (:mod:`.collections`) | lift (a map's values at every key: one SMT array)
    #: | symarray (an array whose size is no known constant, :mod:`.symarrays`) | ilift (a
    #: symarray's leaf: one SMT array from the indices)
    kind: str
    name: str = ""  # machine: "sint" or "uint"
    #: tuple: item types; array: (elem,); record: ((field, type), ...); enum: values;
    #: adt: ((constructor, ((field, type), ...)), ...); set: (elem,); map and lift: (key, value)
    items: tuple = ()
    size: int = 0  # array: its size; machine: the width in bits
    #: symarray: its size, a checked integer expression over free constants and ``const``
    #: parameters (``name`` holds its text, which type equality compares)
    dim: Any = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        if self.kind in ("bool", "int", "real"):
            return self.kind
        if self.kind == "machine":  # Kind 2's spelling: int8 is sint<8>
            return f"{self.name}<{self.size}>"
        if self.kind in ("enum", "abstract", "record", "adt", "typevar"):
            return self.name
        if self.kind == "tuple":
            return "[" + ", ".join(map(str, self.items)) + "]"
        if self.kind == "array":
            return f"{self.items[0]}^{self.size}"
        if self.kind == "symarray":
            return f"{self.items[0]}^{self.name}"
        if self.kind in ("set", "map"):
            return f"{self.kind}<{', '.join(map(str, self.items))}>"
        return self.kind


class Recursive:
    """The constructors of a recursive datatype (a field's type may be the datatype itself, or
    one declared with it), filled once the datatype's type exists: ``T("adt", name,
    items=Recursive(name))`` behaves as the tuple of its constructors, and types holding it
    compare by identity (one object per datatype), which keeps :class:`T` finite.  Such a
    value is one SMT term of a native datatype sort (:mod:`.recursive`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ctors: tuple = ()

    def __iter__(self) -> Any:
        return iter(self.ctors)

    def __getitem__(self, i: Any) -> Any:
        return self.ctors[i]

    def __len__(self) -> int:
        return len(self.ctors)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Recursive({self.name})"


def recursive(t: T) -> bool:
    """Whether ``t`` is a recursive datatype (one SMT term, not a flattened expansion)."""
    return isinstance(t.items, Recursive)


recursive_type = recursive  # for modules that import the module :mod:`.recursive` too


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


def regroup(items: list[Any], types: list[T]) -> list[Any]:
    """Values (or terms) flattened as :func:`flat` flattens their types, put back together one
    per type of ``types`` (a call's arguments, one per input of the callee)."""
    it = iter(items)

    def one(t: T) -> Any:
        return [one(x) for x in t.items] if t.kind == "tuple" else next(it)
    return [one(t) for t in types]


def constructor_tag(t: T) -> T:
    """The type of an algebraic datatype's tag: an enumeration of its constructors."""
    return T("enum", t.name, items=tuple(c for c, _ in t.items))


def adt_fields(t: T) -> list[tuple[str, T]]:
    """An algebraic datatype's components after its tag: every constructor's fields, keyed
    ``Constructor.field``."""
    return [(f"{c}.{f}", ft) for c, fields in t.items for f, ft in fields]


class Adt(dict):
    """A value or term of an algebraic datatype: the index of its constructor under ``%tag``
    and every constructor's fields under ``Constructor.field``.  Only the fields of the tag's
    constructor mean anything, so two values are equal when their tags are and those fields
    are (:meth:`__eq__` on Python values; the translation compares terms alike)."""

    def __init__(self, items: Any, ty: T) -> None:
        super().__init__(items)
        self.ty = ty

    def active(self, index: int) -> list[str]:
        """The keys of the fields of the constructor numbered ``index``."""
        ctor, fields = self.ty.items[index]
        return [f"{ctor}.{f}" for f, _ in fields]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict) or self["%tag"] != other.get("%tag"):
            return False
        tag = self["%tag"]
        return all(self[k] == other[k] for k in self.active(tag)) \
            if isinstance(tag, int) and 0 <= tag < len(self.ty.items) else True

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


class MapParts(dict):
    """A map's value or term: its key set under ``%dom`` and its values under ``%val`` (the
    value type's structure, each leaf an array over the keys).  Two maps are equal when their
    key sets are and their values at those keys are (:mod:`.collections`)."""

    def __init__(self, items: Any, ty: T) -> None:
        super().__init__(items)
        self.ty = ty

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MapParts) and map_values_equal(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


class SymArr(dict):
    """A term of an array whose size is no known constant (:mod:`.symarrays`): under
    ``%arr``, the element type's structure with each leaf an SMT array from the indices."""

    def __init__(self, items: Any, ty: T) -> None:
        super().__init__(items)
        self.ty = ty

    __hash__ = None  # type: ignore[assignment]


def leaf_count(t: T) -> int:
    """How many scalar streams a value of type ``t`` is expanded into."""
    if t.kind == "adt" and not recursive(t):
        return 1 + sum(leaf_count(ft) for _, ft in adt_fields(t))
    if t.kind == "record":
        return sum(leaf_count(ft) for _, ft in t.items)
    if t.kind == "array":
        return t.size * leaf_count(t.items[0])
    if t.kind == "symarray":  # one SMT array per leaf of the element type
        return leaf_count(t.items[0])
    if t.kind == "tuple":
        return sum(leaf_count(it) for it in t.items)
    if t.kind == "map":  # its key set, and its values as one array per leaf of the value type
        return 1 + leaf_count(t.items[1])
    return 1


def numeric(t: T) -> bool:
    return t.kind in ("int", "real")


@dataclass(frozen=True)
class Variant:
    """The key of a datatype's field among a refinement's ``parts``: the field ``key``
    (``Constructor.field``) of a value built by the constructor numbered ``index``, which alone
    owes the field's refinement."""

    index: int
    key: str


@dataclass
class Refinement:
    """Constraints a declared type adds: integer bounds and/or a predicate over ``var``, and
    the refinements of its components (``parts``: a record's fields by name, a tuple's items by
    position, every element of an array under ``"*"``, a datatype's fields by
    :class:`Variant`)."""

    lo: Any = None
    hi: Any = None
    preds: list[tuple[str, Any]] = field(default_factory=list)  # (bound variable, checked Expr)
    parts: dict[Any, Refinement] = field(default_factory=dict)
    #: The obligation's kind in its name where it is not a type's (``Selector``).
    label: str | None = None

    @property
    def empty(self) -> bool:
        return self.lo is None and self.hi is None and not self.preds and \
            all(p.empty for p in self.parts.values())

    @property
    def kind_name(self) -> str:
        """Kind 2's name for the obligation: ``SubRange`` for bounds alone (components
        included), else ``SubType``."""
        if self.label is not None:
            return self.label
        if self.preds or any(p.kind_name == "SubType" for p in self.parts.values()):
            return "SubType"
        return "SubRange"

    def pieces(self) -> list[Refinement]:
        """One refinement per constrained component (its own bounds and predicates, reached
        through ``parts``), in declaration order: Kind 2 makes one obligation of each."""
        out = []
        if self.lo is not None or self.hi is not None or self.preds:
            out.append(Refinement(self.lo, self.hi, list(self.preds), label=self.label))
        for key, sub in self.parts.items():
            out.extend(Refinement(parts={key: piece}) for piece in sub.pieces())
        return out

    def copy(self) -> Refinement:
        return Refinement(self.lo, self.hi, list(self.preds),
                          {k: v.copy() for k, v in self.parts.items()}, self.label)


def scalar_paths(t: T, prefix: str = "") -> list[tuple[str, T]]:
    """The scalar leaves of a structured type with their name suffixes
    (``.f`` for fields, ``[i]`` for array elements, ``.%i`` for tuple components, ``.%tag``
    and ``.Constructor.field`` for an algebraic datatype; a recursive one is a leaf)."""
    if t.kind == "adt" and not recursive(t):
        return [(f"{prefix}.%tag", constructor_tag(t))] + \
            [p for k, ft in adt_fields(t) for p in scalar_paths(ft, f"{prefix}.{k}")]
    if t.kind == "record":
        return [p for f, ft in t.items for p in scalar_paths(ft, f"{prefix}.{f}")]
    if t.kind == "array":
        return [p for i in range(t.size) for p in scalar_paths(t.items[0], f"{prefix}[{i}]")]
    if t.kind == "symarray":  # the element type's leaves lifted to arrays over the indices
        return [(p, T("ilift", items=(lt,))) for p, lt in scalar_paths(t.items[0], f"{prefix}[*]")]
    if t.kind == "tuple":
        return [p for i, it in enumerate(t.items) for p in scalar_paths(it, f"{prefix}.%{i}")]
    if t.kind == "map":  # the key set, then the value type's leaves lifted to arrays
        key, value = t.items
        return [(f"{prefix}.%dom", T("set", items=(key,)))] + \
            [(p, T("lift", items=(key, lt))) for p, lt in scalar_paths(value, f"{prefix}.%val")]
    return [(prefix, t)]


def assemble(name: str, t: T, read: Callable[[str, T], Any]) -> Any:
    """Build a structured value (records, arrays, tuples) from its scalar leaves, named by path;
    the simulator reads values with it and the translation creates symbols with it."""
    if t.kind == "adt" and not recursive(t):
        return Adt({"%tag": read(f"{name}.%tag", constructor_tag(t)),
                    **{k: assemble(f"{name}.{k}", ft, read) for k, ft in adt_fields(t)}}, t)
    if t.kind == "record":
        return {f: assemble(f"{name}.{f}", ft, read) for f, ft in t.items}
    if t.kind == "array":
        return [assemble(f"{name}[{i}]", t.items[0], read) for i in range(t.size)]
    if t.kind == "symarray":
        return SymArr({"%arr": assemble(f"{name}[*]", t.items[0],
                                        lambda n, lt: read(n, T("ilift", items=(lt,))))}, t)
    if t.kind == "tuple":
        return [assemble(f"{name}.%{i}", it, read) for i, it in enumerate(t.items)]
    if t.kind == "map":
        key, value = t.items
        return MapParts({"%dom": read(f"{name}.%dom", T("set", items=(key,))),
                         "%val": assemble(f"{name}.%val", value,
                                          lambda n, lt: read(n, T("lift", items=(key, lt))))}, t)
    return read(name, t)


#: Kinds of types made of other types (:func:`components`).
COMPOSITE = frozenset({"record", "adt", "array", "tuple"})


def components(t: T) -> list[T]:
    """The types ``t`` is immediately made of: a record's fields, every constructor's fields
    of a datatype, an array's element, a tuple's items; none for other kinds, nor for a
    recursive datatype (one SMT term; its fields are scalars or recursive datatypes)."""
    if t.kind == "record":
        return [ft for _, ft in t.items]
    if t.kind == "adt" and not recursive(t):
        return [ft for _, fields in t.items for _, ft in fields]
    if t.kind in ("array", "tuple", "symarray"):
        return list(t.items)
    return []


def leaves(term: Any) -> list[Any]:
    """The scalar leaves of a structured term (records as dicts, arrays and tuples as lists),
    in :func:`assemble`'s order: the inverse of building it."""
    if isinstance(term, dict):
        return [x for v in term.values() for x in leaves(v)]
    if isinstance(term, list):
        return [x for v in term for x in leaves(v)]
    return [term]


def rebuild(template: Any, new: Iterator[Any]) -> Any:
    """``template``'s structure (records, arrays, datatypes, maps) over the leaves ``new``."""
    if isinstance(template, Adt):
        return Adt({k: rebuild(v, new) for k, v in template.items()}, template.ty)
    if isinstance(template, MapParts):
        return MapParts({k: rebuild(v, new) for k, v in template.items()}, template.ty)
    if isinstance(template, dict):
        return {k: rebuild(v, new) for k, v in template.items()}
    if isinstance(template, list):
        return [rebuild(v, new) for v in template]
    return next(new)


def map_value(m: MapParts, key: tuple) -> Any:
    """The value a map's value (not its term) binds to ``key``."""
    return rebuild(m["%val"], iter([leaf.get(key) for leaf in leaves(m["%val"])]))


def map_values_equal(a: MapParts, b: MapParts) -> bool:
    """Two maps (values) are equal when they bind the same keys to equal values."""
    return a["%dom"] == b["%dom"] and all(map_value(a, k) == map_value(b, k) for k in a["%dom"])


def ctor_index(t: T, ctor: str) -> int:
    """The tag of constructor ``ctor`` of the datatype ``t``."""
    return next(i for i, (c, _) in enumerate(t.items) if c == ctor)


#: The type of an abstract type's domain (a set of the integers encoding the type's values).
DOMAIN = T("set", items=(INT,))
