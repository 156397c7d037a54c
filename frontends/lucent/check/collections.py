"""Sets and maps (the primer's "Sets and Maps"): syntax and typing.

``set<T>`` is a finite set of values of ``T``; ``map<K, V>`` a finite map from keys of ``K``
to values of ``V``.  Literals ``{a, b}``, ``{}@<T>``, ``map[k := v; …]``, ``map[]@<K, V>``;
operators ``+`` (union), ``*`` (intersection), ``-`` (difference, and a map restricted by a
set), ``k in s`` / ``k in m``, ``m[k]`` and ``m[k := v]``; ``=`` compares sets by their
elements and maps by their keys and the values at those keys.  The SMT encoding is in
:mod:`.collections_smt`, the values of the simulator and of counterexamples in
:mod:`.collections_sim`.

Checked forms: :class:`SetLit` (typed ``set<T>``), :class:`EmptyMap` (with a ``uid``: the
values it holds at keys it does not bind are a choice), :class:`MapUpdate`, :class:`MapRead`,
:class:`SetOp` (``union``, ``inter``, ``diff``, ``restrict``), :class:`Member`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import BOOL, Refinement, T

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.checker import Checker
    from kinduct.frontends.lucent.check.typecheck import _Scope


class CExpr(A.Expr):
    """A set or map expression (checked or not): the walkers read :meth:`kids`."""

    def kids(self) -> list[A.Expr]:
        raise NotImplementedError


@dataclass(eq=False)
class SetLit(CExpr):
    items: list[A.Expr]
    annot: list[A.TypeExpr] | None = None  # {}@<T>

    def kids(self) -> list[A.Expr]:
        return list(self.items)

    def check(self, scope: _Scope) -> A.Expr:
        items = [scope.check(x) for x in self.items]
        if self.annot is not None:
            if len(self.annot) != 1:
                raise scope.err("a set literal is annotated with one element type: {}@<T>",
                                self.pos)
            elem = scope.c.resolve_type(self.annot[0])[0]
        elif items:
            elem = items[0].ty
        else:
            raise scope.err("an empty set literal must be annotated with its element type: "
                            "{}@<T>", self.pos)
        _key_type(scope, elem, self.pos)
        for x in items:
            scope.unify(elem, x.ty, x.pos)
        return SetLit(items, None, pos=self.pos, ty=T("set", items=(elem,)))


@dataclass(eq=False)
class MapLit(CExpr):
    """The source form ``map[k := v; …]@<K, V>``, checked into updates of an :class:`EmptyMap`."""

    pairs: list[tuple[A.Expr, A.Expr]]
    annot: list[A.TypeExpr] | None = None

    def kids(self) -> list[A.Expr]:
        return [x for p in self.pairs for x in p]

    def check(self, scope: _Scope) -> A.Expr:
        pairs = [(scope.check(k), scope.check(v)) for k, v in self.pairs]
        if self.annot is not None:
            if len(self.annot) != 2:
                raise scope.err("a map literal is annotated with a key and a value type: "
                                "map[]@<K, V>", self.pos)
            key, value = (scope.c.resolve_type(x)[0] for x in self.annot)
        elif pairs:
            key, value = pairs[0][0].ty, pairs[0][1].ty
        else:
            raise scope.err("an empty map literal must be annotated with its key and value "
                            "types: map[]@<K, V>", self.pos)
        t = T("map", items=(key, value))
        _key_type(scope, key, self.pos)
        acc: A.Expr = EmptyMap(pos=self.pos, ty=t)
        acc.uid = naming.uid("map", acc)
        for k, v in pairs:
            scope.unify(key, k.ty, k.pos)
            scope.unify(value, v.ty, v.pos)
            acc = MapUpdate(acc, k, v, pos=self.pos, ty=t)
        return acc


@dataclass(eq=False)
class EmptyMap(CExpr):
    def kids(self) -> list[A.Expr]:
        return []


@dataclass(eq=False)
class MapUpdate(CExpr):
    arg: A.Expr
    key: A.Expr
    value: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.arg, self.key, self.value]


@dataclass(eq=False)
class MapRead(CExpr):
    arg: A.Expr
    key: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.arg, self.key]


@dataclass(eq=False)
class SetOp(CExpr):
    op: str  # union | inter | diff | restrict (a map without the keys of a set)
    left: A.Expr
    right: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.left, self.right]


@dataclass(eq=False)
class Member(CExpr):
    key: A.Expr
    coll: A.Expr

    def kids(self) -> list[A.Expr]:
        return [self.key, self.coll]


# ---- parsing ----

def set_literal(items: list[Any], pos: A.Pos) -> SetLit:
    """``{a, b}`` or ``{}@<T>`` from the parser's items (an expression list, type arguments)."""
    exprs = next((i for i in items if isinstance(i, list) and
                  all(isinstance(x, A.Expr) for x in i) and i), [])
    annot = next((i for i in items if isinstance(i, list) and i and
                  all(isinstance(x, A.TypeExpr) for x in i)), None)
    return SetLit(list(exprs), annot, pos=pos)


def map_literal(items: list[Any], pos: A.Pos) -> MapLit:
    """``map[k := v; …]`` or ``map[]@<K, V>`` from the parser's items."""
    exprs = [i for i in items if isinstance(i, A.Expr)]
    annot = next((i for i in items if isinstance(i, list)), None)
    return MapLit(list(zip(exprs[::2], exprs[1::2], strict=True)), annot, pos=pos)


# ---- typing ----

def _key_type(scope: _Scope, t: T, pos: A.Pos) -> None:
    """Elements and keys are compared by value: no sets, maps or abstract types among them."""
    from kinduct.frontends.lucent.smt.collections_smt import unsupported_key
    why = unsupported_key(t)
    if why is not None:
        from kinduct.frontends.lucent.check.typecheck import _line
        from kinduct.kernel.errors import SourceLocation, UnsupportedError
        raise UnsupportedError(f"sets and maps with {why} as elements or keys" if why else
                               "sets and maps of recursive datatypes",
                               SourceLocation(scope.c.file, pos.line, pos.col),
                               _line(scope.c.text, pos.line))


def resolve_type(checker: Checker, te: A.TypeExpr) -> tuple[T, Refinement]:
    """``set<T>`` and ``map<K, V>``: a refinement of the elements (keys, values) is kept as
    the part ``elem`` (``key``, ``value``)."""
    resolved = [checker.resolve_type(x) for x in te.args]
    t = T(te.kind, items=tuple(r[0] for r in resolved))
    names = ("elem",) if te.kind == "set" else ("key", "value")
    parts = {(n, t.items[0]): r for n, (_, r) in zip(names, resolved, strict=True) if not r.empty}
    from kinduct.frontends.lucent.check.recursive import holds_recursive
    from kinduct.frontends.lucent.smt.collections_smt import unsupported_key
    why = "" if any(holds_recursive(x) for x in t.items) else unsupported_key(t.items[0])
    if why is not None:
        from kinduct.frontends.lucent.check.typecheck import _line
        from kinduct.kernel.errors import SourceLocation, UnsupportedError
        raise UnsupportedError(f"sets and maps with {why} as elements or keys" if why else
                               "sets and maps of recursive datatypes",
                               SourceLocation(checker.file, te.pos.line, te.pos.col),
                               _line(checker.text, te.pos.line))
    return t, Refinement(parts=parts)


def involved(op: str, a: A.Expr, b: A.Expr) -> bool:
    """Whether the binary operator ``op`` is one of sets and maps here."""
    return op == "in" or (op in ("+", "*", "-") and a.ty.kind in ("set", "map"))


def check_binop(scope: _Scope, e: A.Binop, a: A.Expr, b: A.Expr) -> A.Expr:
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


def check_read(scope: _Scope, arg: A.Expr, e: A.Index) -> A.Expr:
    key = scope.expect(e.index, arg.ty.items[0])
    return MapRead(arg, key, pos=e.pos, ty=arg.ty.items[1])


def check_update(scope: _Scope, arg: A.Expr, e: A.Update) -> A.Expr:
    key = scope.expect(e.index, arg.ty.items[0])
    value = scope.expect(e.value, arg.ty.items[1])
    return MapUpdate(arg, key, value, pos=e.pos, ty=arg.ty)
