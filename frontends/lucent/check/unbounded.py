"""Quantifiers over infinite domains (``forall (i: int) i in s => i >= 0``), kept as SMT
quantifiers where :mod:`.quantifiers` cannot expand them.

Allowed: variables of ``int``, ``real``, ``bool``, enumerations, machine integers, and
records,
tuples, arrays and datatypes of these (each leaf a bound SMT variable; a datatype's value is
its canonical representative, :func:`.collections_smt.canonical`); the body may not hold
``pre``, ``->``, node calls, nor choices named by the quantified variable (divisions by it,
array reads out of range), which would need one stream per value.  Sets and maps are not
quantified over.

The simulator evaluates such a quantifier on the values its sets and maps hold
(:mod:`.collections_sim`): exactly when every variable is guarded by its membership in a
set or map, and otherwise only when some value decides it (a counterexample to a ``forall``,
a witness of an ``exists``); else the evaluation is undetermined and a replay inconclusive.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import UQuant
from kinduct.frontends.lucent.core.types import BOOL, COMPOSITE, Refinement, T, components, recursive
from kinduct.frontends.lucent.core.walk import (
    const_value,
    has_temporal,
    map_children,
    subterms,
    uid_nodes_reading,
)
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


def _quantifiable(t: T) -> bool:
    if t.kind in ("int", "real", "bool", "enum", "machine"):
        return True
    if recursive(t):  # a native datatype: its values are not expanded into scalars
        return False
    return t.kind in COMPOSITE and all(_quantifiable(c) for c in components(t))


def _refuse(scope: Scope, what: str, pos: A.Pos) -> UnsupportedError:
    return UnsupportedError(what, SourceLocation(scope.c.file, pos.line, pos.col),
                            A.source_line(scope.c.text, pos.line))


def membership(q: A.Quant) -> bool:
    """Whether the (source) quantifier tests a membership (``x in s``): kept whole rather
    than decided by a witness, its hypothesis makes an induction over sets (``forall (i: int)
    i in s => i >= 0`` of a growing ``s``) go through."""
    return any(isinstance(x, A.Binop) and x.op == "in" for x in subterms(q.body))


def takes(scope: Scope, q: A.Quant) -> bool:
    """Whether every variable of ``q`` has a type these quantifiers range over."""
    return all(_quantifiable(scope.c.resolve_type(p.type_expr)[0]) for p in q.params)


def check(scope: Scope, q: A.Quant, refused: str) -> A.Expr:
    """The quantifier ``q`` kept whole; ``refused``: the message when it cannot be."""
    params = []
    for p in q.params:
        t, ref = scope.c.resolve_type(p.type_expr)
        if not _quantifiable(t):
            raise _refuse(scope, refused, p.pos)
        params.append((p.name, t, ref))
    names = {n for n, _, _ in params}
    sub = copy.copy(scope)
    sub.env = {**scope.env, **{n: t for n, t, _ in params}}
    sub.local_consts = {k: v for k, v in scope.local_consts.items() if k not in names}
    before = len(scope.node.obligations) if scope.node is not None else 0
    conds = [sub.expect(p.pred, BOOL) for p in q.params if p.pred is not None]
    body = sub.expect(q.body, BOOL)
    if scope.node is not None:
        for p in scope.node.obligations[before:]:
            if any(isinstance(x, A.Var) and x.name in names for x in subterms(p.expr)):
                raise _refuse(scope, "an obligation (a selector, a type ascription) on the "
                              "variable of a quantifier over an infinite domain", p.pos)
    for c in reversed(conds):
        body = A.Binop("=>" if q.kind == "forall" else "and", c, body, pos=q.pos, ty=BOOL)
    body = inline(scope, body, {n: ref for n, _, ref in params})
    if any(isinstance(x, A.AnyE) for x in subterms(body)):
        raise _refuse(scope, "'any' in a quantifier over an infinite domain", q.pos)
    if has_temporal(body, calls=True):
        raise _refuse(scope, "'pre', '->' or a node call in a quantifier over an infinite domain",
                      q.pos)
    for n in names:
        bad = [x for x in uid_nodes_reading(body, n) if not _in_range(x)]
        if bad:
            raise _refuse(scope, "a division or an array read by the variable of a quantifier "
                          "over an infinite domain", bad[0].pos)
    return UQuant(q.kind, params, body, pos=q.pos, ty=BOOL)


def _inlinable(callee: Any, refined: bool = False) -> bool:
    """A function that is one expression of its inputs: no state, calls, contract,
    properties, obligations or refinements (unless ``refined``: they are implied), one
    output."""
    return (callee is not None and callee.kind == "function" and not callee.imported and
            not callee.has_contract and not callee.props and not callee.asserts and
            not callee.pres and not callee.calls and not callee.obligations and
            (refined or not callee.refinements) and not callee.cut and len(callee.outputs) == 1 and
            all(len(names) == 1 for names, _ in callee.eqs))


def inline(scope: Scope, e: A.Expr, bounds: dict[str, Refinement] | None = None) -> A.Expr:
    """``e`` with the calls of :func:`_inlinable` functions replaced by their bodies (a
    quantifier's body cannot hold a node instance per value of its variables); a function
    whose inputs have refinement types too where its arguments are variables of ``bounds``
    whose types imply them (:func:`.quantified.inputs_covered`: no obligation is lost)."""
    if isinstance(e, A.Call):
        from kinduct.frontends.lucent.check.quantified import inputs_covered
        callee = scope.done.get(e.name)
        if callee is not None and len(e.args) == len(callee.inputs) and \
                _inlinable(callee, inputs_covered(callee, e.args, bounds or {})):
            args = [inline(scope, a, bounds) for a in e.args]
            if scope.node is not None and e in scope.node.calls:
                scope.node.calls.remove(e)
            defs = {names[0]: x for names, x in callee.eqs}
            return substitute(defs[callee.outputs[0]], dict(zip(callee.inputs, args, strict=True)),
                               defs)
        return e
    return map_children(e, lambda x: inline(scope, x, bounds))


def substitute(e: A.Expr, env: dict[str, A.Expr], defs: dict[str, A.Expr]) -> A.Expr:
    """A callee's expression with its inputs bound to ``env`` and its locals to their
    definitions (fresh names for what it chooses)."""
    if isinstance(e, A.Var):
        if e.name in env:
            return env[e.name]
        if e.name in defs:
            return substitute(defs[e.name], env, defs)
        return e
    out = map_children(e, lambda x: substitute(x, env, defs))
    if getattr(out, "uid", None) is not None:
        out.uid = naming.uid("inl", out)
    return out


def _in_range(e: A.Expr) -> bool:
    """An array read at a constant index within its bounds (no choice of its own), or a read
    of an array of symbolic size (a choice per index, :mod:`.symarrays`)."""
    if isinstance(e, A.Index) and e.arg.ty.kind == "symarray":
        return True
    if not isinstance(e, A.Index) or e.arg.ty.kind != "array":
        return False
    i = const_value(e.index)
    return isinstance(i, int) and 0 <= i < e.arg.ty.size
