"""Recursive algebraic datatypes (the primer's ``datatype IntList = Cons (head: int, tail:
IntList) | Nil;``), mutually recursive ones and polymorphic ones (``List<T>``).

A recursive datatype has no finite expansion into scalar streams, so unlike the other
datatypes (:mod:`.datatypes`) its value is one SMT term of a native datatype sort
(:mod:`kinduct.kernel.datatypes`): constructors, testers and selectors are the solver's, which
decides them exactly (distinct constructors, injective, acyclic values).  Its type is
``T("adt", name, items=Recursive(name))`` (:class:`~.types.Recursive`); the datatypes it names
that are not declared yet are declared with it (a mutually recursive group).

A field of a recursive datatype is a scalar (``bool``, ``int``, ``real``, a machine integer,
an abstract type), an enumeration, a non-recursive datatype without recursive values, a
recursive datatype, or a record, tuple or array of those: the native constructor has one
field per component (:mod:`.native`), the simulator's tree one argument per Lucent field.
Refinement types on fields (a quantification over the tree) are refused as unsupported.

A selector ``e.f`` written in the program reads a fresh choice (named by the occurrence) where
``e`` was built by another constructor, as a non-recursive datatype's other fields are
arbitrary: its obligation ``C?(e)`` fails there; a non-recursive datatype's value read out of
a tree gets choices named by the read as its other constructors' fields (:mod:`.native`).
The simulator's values are :class:`~kinduct.kernel.datatypes.Tree`\\ s, whose choices it
reads from the oracle under the same names.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.check import ctors
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.native import base
from kinduct.frontends.lucent.core.types import (
    Recursive,
    Refinement,
    T,
    components,
    recursive,
)
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker

#: Kinds of types a field of a recursive datatype may have besides recursive datatypes.
_SCALAR = frozenset({"bool", "int", "real", "machine", "abstract", "typevar", "enum"})


def names(te: A.TypeExpr, name: str) -> bool:
    """Whether the type expression ``te`` names the type ``name`` (or applies it)."""
    if te.kind in ("name", "app") and te.args[0] == name:
        return True
    for a in te.args:
        subs = [a] if isinstance(a, A.TypeExpr) else \
            [x for x in a if isinstance(x, A.TypeExpr)] if isinstance(a, tuple) else []
        if any(names(x, name) for x in subs):
            return True
    return False


def field_types(te: A.TypeExpr) -> list[A.TypeExpr]:
    """The type expressions of the fields of ``datatype … = te``."""
    return [fte for _, fields, _ in te.args for _, fte in fields]


def holds_recursive(t: T) -> bool:
    """Whether a value of ``t`` holds a recursive datatype's value."""
    return recursive(t) or any(holds_recursive(x) for x in components(t))


def _unsupported(checker: Checker, what: str, pos: A.Pos) -> UnsupportedError:
    located = checker.err("", pos)
    return UnsupportedError(what, SourceLocation(checker.file, pos.line, pos.col),
                            located.source_line)


# ---- declarations ----

def _pending(checker: Checker) -> dict[str, A.TypeExpr]:
    """Datatype declarations (without type parameters) not declared yet."""
    return {td.name: td.type_expr for td in checker.prog.types
            if td.type_expr is not None and td.type_expr.kind == "adt" and not td.type_params
            and td.name not in checker.types}


def group(checker: Checker, te: A.TypeExpr, name: str) -> list[tuple[str, A.TypeExpr]] | None:
    """The datatypes to declare with ``datatype name = te`` when it is recursive: itself and
    the pending datatypes it names (transitively); None when it is not recursive."""
    pending = _pending(checker) if not checker.strict else {}
    out = [(name, te)]
    todo = [te]
    while todo:
        for fte in field_types(todo.pop()):
            for n, other in pending.items():
                if n not in (x for x, _ in out) and names(fte, n):
                    out.append((n, other))
                    todo.append(other)
    recursive_ = any(names(fte, name) for fte in field_types(te)) or len(out) > 1
    return out if recursive_ else None


def declare(checker: Checker, members: list[tuple[str, A.TypeExpr]]) -> T:
    """Declare the recursive datatypes ``members`` (name, body) together; the first's type."""
    for _, te in members:
        ctors.check_names(checker, te)
    types = {n: T("adt", n, items=Recursive(n)) for n, _ in members}
    checker.types.update(types)
    try:
        for n, te in members:
            _fill(checker, types[n], te)
    except BaseException:  # a field names a type not declared yet: declared again later
        for n in types:
            del checker.types[n]
        raise
    for n, te in members:
        for i, (ctor, _) in enumerate(types[n].items):
            if ctor in checker.ctors:  # in two datatypes of the group
                raise checker.err(f"'{ctor}' is declared twice", te.pos)
            checker.ctors[ctor] = (types[n], i)
    for n, te in members:
        if base(types[n]) is None:
            raise checker.err(f"datatype {n} has no finite value (every constructor needs "
                              "another value of it)", te.pos)
    return types[members[0][0]]


_INSTANCES: weakref.WeakKeyDictionary[Any, dict[str, T]] = weakref.WeakKeyDictionary()


def instance(checker: Checker, te: A.TypeExpr, name: str) -> tuple[T, Refinement]:
    """The instance ``name`` (``List<int>``) of a recursive polymorphic datatype ``te``,
    under the checker's current type parameters; one type per instance."""
    refined = [p for p, (_, ref) in checker.type_params.items() if not ref.empty]
    if refined:  # one type per instance, the refinement apart: it would be dropped
        uses = [fte for fte in field_types(te) if names(fte, refined[0])] or field_types(te)
        raise _unsupported(checker, f"a refinement type as the type argument {refined[0]} of "
                           f"the recursive datatype {name.split('<', 1)[0]} (it would be owed "
                           "by every subtree)", uses[0].pos)
    known = _INSTANCES.setdefault(checker, {})
    t = known.get(name)
    if t is None:
        for fte in field_types(te):
            other = [n for n in _pending(checker) if names(fte, n)]
            if other:
                raise _unsupported(checker, "a polymorphic datatype recursive with another "
                                   f"datatype ({other[0]})", fte.pos)
        t = known[name] = T("adt", name, items=Recursive(name))
        try:
            _fill(checker, t, te)
        except BaseException:
            del known[name]
            raise
        if base(t) is None:
            raise checker.err(f"datatype {name} has no finite value (every constructor needs "
                              "another value of it)", te.pos)
    return t, Refinement()


def _fill(checker: Checker, t: T, te: A.TypeExpr) -> None:
    items, ref = ctors.constructors(checker, te, t.name)
    if not ref.empty:
        pos = next(fte.pos for _, fields, _ in te.args for _, fte in fields)
        for _, fields, _ in te.args:
            for _, fte in fields:
                if not checker.resolve_type(fte)[1].empty:
                    pos = fte.pos
                    break
        raise _unsupported(checker, f"a refinement type on a field of the recursive datatype "
                           f"{t.name} (it would be owed by every subtree)", pos)
    for (_, fields, _), (_, resolved) in zip(te.args, items, strict=True):
        for (_, fte), (_, ft) in zip(fields, resolved, strict=True):
            if not _allowed(ft):
                raise _unsupported(checker, f"a field of type {ft} in the recursive datatype "
                                   f"{t.name} (fields are scalars, enumerations, recursive "
                                   "datatypes, datatypes without recursive values, and records, "
                                   "tuples and arrays of them)", fte.pos)
    t.items.ctors = items


def _allowed(t: T) -> bool:
    """Whether a field may have type ``t`` (:mod:`.native`): a scalar, an enumeration, a
    recursive datatype, a datatype that holds no recursive value, or a record, tuple or array
    of those."""
    if t.kind in _SCALAR or recursive(t):
        return True
    if t.kind == "adt" and holds_recursive(t):
        return False
    return t.kind in ("record", "tuple", "array", "adt") and \
        all(_allowed(c) for c in components(t))



def mark(field: A.Field, owed: bool) -> A.Field:
    """A read of a recursive datatype's field, named (its choices are): a selector written in
    the program (``owed``: its obligation is owed) reads a choice where its obligation fails, a
    pattern's read is used only where its pattern matches."""
    field.choice = naming.current().choice(field.pos.line, field.pos.col)  # type: ignore[attr-defined]
    field.owed = owed  # type: ignore[attr-defined]
    return field
