"""Sets and maps (the primer's "Sets and Maps"): typing (the nodes are in
:mod:`kinduct.frontends.lucent.core.collections`).

``set<T>`` is a finite set of values of ``T``; ``map<K, V>`` a finite map from keys of ``K``
to values of ``V``.  Literals ``{a, b}``, ``{}@<T>``, ``map[k := v; …]``, ``map[]@<K, V>``;
operators ``+`` (union), ``*`` (intersection), ``-`` (difference, and a map restricted by a
set), ``k in s`` / ``k in m``, ``m[k]`` and ``m[k := v]``; ``=`` compares sets by their
elements and maps by their keys and the values at those keys.  The SMT encoding is in
:mod:`.collections_smt`, the values of the simulator and of counterexamples in
:mod:`.collections_sim`.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.collections import (
    EmptyMap,
    MapLit,
    MapRead,
    MapUpdate,
    Member,
    SetLit,
    SetOp,
)
from kinduct.frontends.lucent.core.types import BOOL, Refinement, T, scalar_paths

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope


def _key_type(scope: Scope, t: T, pos: A.Pos) -> None:
    """Elements and keys are compared by value: no sets, maps or abstract types among them."""
    why = unsupported_key(t)
    if why is not None:
        from kinduct.kernel.errors import SourceLocation, UnsupportedError
        raise UnsupportedError(f"sets and maps with {why} as elements or keys" if why else
                               "sets and maps of recursive datatypes",
                               SourceLocation(scope.c.file, pos.line, pos.col),
                               A.source_line(scope.c.text, pos.line))


def resolve_type(checker: Checker, te: A.TypeExpr) -> tuple[T, Refinement]:
    """``set<T>`` and ``map<K, V>``: a refinement of the elements (keys, values) is kept as
    the part ``elem`` (``key``, ``value``)."""
    resolved = [checker.resolve_type(x) for x in te.args]
    t = T(te.kind, items=tuple(r[0] for r in resolved))
    names = ("elem",) if te.kind == "set" else ("key", "value")
    parts = {(n, t.items[0]): r for n, (_, r) in zip(names, resolved, strict=True) if not r.empty}
    from kinduct.frontends.lucent.check.recursive import holds_recursive
    why = "" if any(holds_recursive(x) for x in t.items) else unsupported_key(t.items[0])
    if why is not None:
        from kinduct.kernel.errors import SourceLocation, UnsupportedError
        raise UnsupportedError(f"sets and maps with {why} as elements or keys" if why else
                               "sets and maps of recursive datatypes",
                               SourceLocation(checker.file, te.pos.line, te.pos.col),
                               A.source_line(checker.text, te.pos.line))
    return t, Refinement(parts=parts)


def involved(op: str, a: A.Expr, b: A.Expr) -> bool:
    """Whether the binary operator ``op`` is one of sets and maps here."""
    return op == "in" or (op in ("+", "*", "-") and a.ty.kind in ("set", "map"))


def check_binop(scope: Scope, e: A.Binop, a: A.Expr, b: A.Expr) -> A.Expr:
    if e.op == "in":
        if b.ty.kind not in ("set", "map"):
            raise scope.err(f"type mismatch: expected a set or a map, got {b.ty}", e.right.pos)
        scope.unify(b.ty.items[0], a.ty, e.left.pos)
        return Member(a, b, pos=e.pos, ty=BOOL)
    if a.ty.kind == "map":
        if e.op != "-":
            raise scope.err(f"type mismatch: '{e.op}' is not an operator of maps", e.pos)
        if b.ty.kind != "set":
            raise scope.err(f"type mismatch: expected a set, got {b.ty}", e.right.pos)
        scope.unify(T("set", items=(a.ty.items[0],)), b.ty, e.right.pos)
        r = SetOp("restrict", a, b, pos=e.pos, ty=a.ty)
        r.uid = naming.uid("set", r)  # the key set it defines
        return r
    scope.unify(a.ty, b.ty, e.right.pos)
    op = {"+": "union", "*": "inter", "-": "diff"}[e.op]
    r = SetOp(op, a, b, pos=e.pos, ty=a.ty)
    r.uid = naming.uid("set", r)  # the set it defines
    return r


def check_read(scope: Scope, arg: A.Expr, e: A.Index) -> A.Expr:
    key = scope.expect(e.index, arg.ty.items[0])
    return MapRead(arg, key, pos=e.pos, ty=arg.ty.items[1])


def check_update(scope: Scope, arg: A.Expr, e: A.Update) -> A.Expr:
    key = scope.expect(e.index, arg.ty.items[0])
    value = scope.expect(e.value, arg.ty.items[1])
    return MapUpdate(arg, key, value, pos=e.pos, ty=arg.ty)


def check_set_literal(scope: Scope, e: SetLit) -> A.Expr:
    """``{a, b}``, ``{}@<T>``: a set of the items' type."""
    items = [scope.check(x) for x in e.items]
    if e.annot is not None:
        if len(e.annot) != 1:
            raise scope.err("a set literal is annotated with one element type: {}@<T>",
                            e.pos)
        elem = scope.c.resolve_type(e.annot[0])[0]
    elif items:
        elem = items[0].ty
    else:
        raise scope.err("an empty set literal must be annotated with its element type: "
                        "{}@<T>", e.pos)
    _key_type(scope, elem, e.pos)
    for x in items:
        scope.unify(elem, x.ty, x.pos)
    return SetLit(items, None, pos=e.pos, ty=T("set", items=(elem,)))


def check_map_literal(scope: Scope, e: MapLit) -> A.Expr:
    """``map[k := v; …]@<K, V>``: updates of an :class:`EmptyMap` named by a fresh id."""
    pairs = [(scope.check(k), scope.check(v)) for k, v in e.pairs]
    if e.annot is not None:
        if len(e.annot) != 2:
            raise scope.err("a map literal is annotated with a key and a value type: "
                            "map[]@<K, V>", e.pos)
        key, value = (scope.c.resolve_type(x)[0] for x in e.annot)
    elif pairs:
        key, value = pairs[0][0].ty, pairs[0][1].ty
    else:
        raise scope.err("an empty map literal must be annotated with its key and value "
                        "types: map[]@<K, V>", e.pos)
    t = T("map", items=(key, value))
    _key_type(scope, key, e.pos)
    acc: A.Expr = EmptyMap(pos=e.pos, ty=t)
    acc.uid = naming.uid("map", acc)
    for k, v in pairs:
        scope.unify(key, k.ty, k.pos)
        scope.unify(value, v.ty, v.pos)
        acc = MapUpdate(acc, k, v, pos=e.pos, ty=t)
    return acc


def unsupported_key(t: T) -> str | None:
    """Why values of ``t`` cannot be elements or keys (None: they can)."""
    if t.kind in ("set", "map", "lift"):
        return "sets or maps"
    if t.kind == "typevar":
        return "type parameters"
    if t.kind in ("record", "adt"):
        subs = [ft for _, ft in t.items] if t.kind == "record" else \
            [ft for _, fields in t.items for _, ft in fields]
    elif t.kind in ("array", "tuple"):
        subs = list(t.items)
    else:
        return None
    for s in subs:
        why = unsupported_key(s)
        if why is not None:
            return why
    if not scalar_paths(t):
        return "values without components"
    return None
