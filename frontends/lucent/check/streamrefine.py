"""Refinement predicates over streams: a predicate that reads its bound variable under
``pre`` or ``->`` (``subtype { n: int | true -> n > pre n }``) constrains a stream, not one
value, and is applied only where the type's values form a stream of a node.

- A node's declared input, output or local (and a record field or tuple item of one): the
  bound variable is replaced by the stream itself (:func:`bind_declared`), so ``pre n`` is the
  stream's memory, as any other ``pre`` of the node, in the translation and the simulator.
- The result of ``any`` (:func:`bind_any` for its own predicate, :func:`renamed` for its
  type's, at translation): the bound variable is renamed apart per occurrence, so each
  occurrence remembers its own value.

A node called on the variable of ``any`` in its predicate (``any { x: T | N(x) }``) runs on
the stream of its values (:func:`calls_on_any`).

Elsewhere (a quantified variable, an array's elements, a set's or a map's parts, a
datatype's fields, an ascription, a constant, a function's streams, ``choose``) such a
predicate is refused, located (:func:`refuse`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.types import INT
from kinduct.frontends.lucent.core.walk import (
    children,
    needs_stream,
    reads_var,
    refuse_stream_predicate,
    substitute,
    subterms,
)
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Checker, Scope
    from kinduct.frontends.lucent.core.checked import Node
    from kinduct.frontends.lucent.core.types import Refinement


def _old_pres(e: A.Expr, var: str) -> list[A.Expr]:
    """The ``pre`` of ``e`` that read ``var`` (replaced by :func:`substitute`'s copies)."""
    found, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Unop) and x.op == "pre" and reads_var(x, var):
            found.append(x)
        stack.extend(children(x))
    return found


def bind_declared(c: Checker, node: Node) -> None:
    """Apply the stream predicates of ``node``'s declared streams to the streams themselves
    (their refinement's own predicates and those of record fields and tuple items)."""
    for name, ref in node.refinements.items():
        _bind(c, node, ref, A.Var(name, pos=node.var_pos[name], ty=node.types[name]))


def _bind(c: Checker, node: Node, ref: Refinement, target: A.Expr) -> None:
    preds = []
    for var, pred in ref.preds:
        if needs_stream(pred, var):
            if node.kind == "function":
                refuse_stream_predicate(c.file, c.text, pred.pos, "in the type of a function's variable (a "
                       "function has no memory)")
            gone = {id(p) for p in _old_pres(pred, var)}
            node.pres[:] = [p for p in node.pres if id(p) not in gone]
            pred = substitute(pred, var, target, node.pres)
        preds.append((var, pred))
    ref.preds = preds
    t = target.ty
    for key, sub in ref.parts.items():
        if t.kind == "record" and isinstance(key, str) and key != "*":
            ft = dict(t.items)[key]
            _bind(c, node, sub, A.Field(target, key, pos=target.pos, ty=ft))
        elif t.kind == "tuple" and isinstance(key, int):
            index = A.Lit(key, "int", pos=target.pos, ty=_int())
            _bind(c, node, sub, A.Index(target, index, pos=target.pos, ty=t.items[key]))


def _int() -> Any:
    return INT


def bind_any(node: Node | None, var: str, uid: str, pred: A.Expr) -> tuple[str, A.Expr]:
    """``any``'s own predicate over ``var``: where it needs a stream, the bound variable
    renamed apart for this occurrence ``uid`` (its ``pre`` then remember this occurrence's
    value); the simulator never evaluates it (an ``any``'s value is the trace's), so its
    ``pre`` leave the node's list."""
    if not needs_stream(pred, var):
        return var, pred
    if node is not None:
        gone = {id(p) for p in _old_pres(pred, var)}
        node.pres[:] = [p for p in node.pres if id(p) not in gone]
    fresh = f"{var}%{uid}"
    return fresh, substitute(pred, var, fresh, [])


def calls_on_any(scope: Scope, r: A.AnyE, pred: A.Expr) -> None:
    """A call in the predicate of ``any`` ``r`` reading its variable is an instance running on
    the stream of the values ``r`` picks (``r.calls_on_var``: whether a value can be picked is
    decided over the instance's current streams too, :class:`.choice.Mark`).  The simulator,
    which takes an ``any``'s value from the trace and never evaluates its predicate, does not
    run the instance (it leaves the node's calls).  Refused in ``choose`` (a function of its
    arguments, not of an instance's state)."""
    calls = [x for x in subterms(pred) if isinstance(x, A.Call) and reads_var(x, r.var)]
    if not calls:
        return
    if r.functional:
        raise UnsupportedError("a node call on the variable of 'choose' in its predicate",
                               SourceLocation(scope.c.file, calls[0].pos.line, calls[0].pos.col),
                               A.source_line(scope.c.text, calls[0].pos.line))
    r.calls_on_var = True
    if scope.node is not None:
        gone = {id(c) for c in calls}
        scope.node.calls[:] = [c for c in scope.node.calls if id(c) not in gone]
