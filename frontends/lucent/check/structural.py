"""Functional updates of records and tuples, ``r[f := v]`` and ``p[1 := v]`` (Kind 2 writes a
record's field and a tuple's component in the update syntax of arrays), typed into the
constructors the rest of the frontend knows: a record literal (:class:`~.ast.RecordLit`) and a
tuple (:class:`~.ast.TupleE`) whose other parts read the updated value.  The value is shared,
not copied: a node call in it stays one call (the translator and the simulator evaluate a
subexpression with a ``uid`` once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import INT
from kinduct.frontends.lucent.core.walk import const_value

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def update(scope: Scope, arg: A.Expr, e: A.Update) -> A.Expr:
    """``e`` (``arg[index := value]``, ``arg`` checked already, a record or a tuple) checked."""
    if arg.ty.kind == "record":
        return _record(scope, arg, e)
    return _tuple(scope, arg, e)


def _record(scope: Scope, arg: A.Expr, e: A.Update) -> A.Expr:
    fields = dict(arg.ty.items)
    if not isinstance(e.index, A.Var):
        raise scope.err("a record is updated field by field: expected a field name before ':='",
                        e.index.pos)
    name = e.index.name
    if name not in fields:
        raise scope.err(f"record type {arg.ty} has no field '{name}'", e.index.pos)
    value = scope.expect(e.value, fields[name])
    parts = [(f, value if f == name else A.Field(arg, f, pos=e.pos, ty=t))
             for f, t in arg.ty.items]
    return A.RecordLit(str(arg.ty), parts, pos=e.pos, ty=arg.ty)


def _tuple(scope: Scope, arg: A.Expr, e: A.Update) -> A.Expr:
    k = const_value(scope.expect(e.index, INT))
    if not isinstance(k, int) or isinstance(k, bool):
        raise scope.err("a tuple is updated component by component: expected a numeral before "
                        "':='", e.index.pos)
    items = arg.ty.items
    if not 0 <= k < len(items):
        raise scope.err(f"tuple index {k} out of range", e.index.pos)
    value = scope.expect(e.value, items[k])
    parts = [value if i == k else A.Index(arg, A.Lit(i, "int", pos=e.pos, ty=INT), pos=e.pos, ty=t)
             for i, t in enumerate(items)]
    return A.TupleE(parts, pos=e.pos, ty=arg.ty)
