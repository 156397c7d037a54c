"""Quantifiers ``forall (x: T; …) e`` and ``exists (x: T; …) e`` over finite domains,
expanded into conjunctions and disjunctions of ``e`` with the variables bound to each value.

A variable's domain is finite when its type is ``bool``, an enumeration, an integer subrange
with constant bounds, or ``int`` bounded by the quantifier itself: the guard of ``forall (i:
int) lo <= i and i < hi => e`` or ``forall (i: int | lo <= i and i < hi) e`` and the first
conjuncts of ``exists (i: int) lo <= i and i < hi and e`` (bounds that are constant
expressions: numerals, constants, arithmetic of them).  Values outside such bounds make the
guard false, so they add nothing to the formula: the expansion is exact.  A refinement
predicate of the type is kept as a guard of each instance.  Quantifiers over other domains
(unbounded integers, reals, abstract types, structures) are refused as unsupported.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from kinduct.frontends.lucent.check import quantified, skolem, unbounded
from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import Refines
from kinduct.frontends.lucent.core.types import BOOL, INT, Refinement, T
from kinduct.frontends.lucent.core.walk import children, const_value, has_temporal
from kinduct.kernel.errors import InputError, SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope

#: Most instances one quantifier may expand into (the product of its variables' domains).
MAX_INSTANCES = 4096

_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def expand(scope: Scope, q: A.Quant) -> A.Expr:
    """The checked Boolean expression that the quantifier ``q`` stands for: its finite
    expansion, else its witness form where :func:`.skolem.mark` marked it, else the
    quantifier itself (:mod:`.quantified`)."""
    try:
        return _expand(scope, q)
    except _Infinite:
        if getattr(q, "witness", False) and scope.node is not None and \
                not unbounded.membership(q):
            return skolem.witness_form(scope, q)
        node = scope.node
        kept = {k: len(getattr(node, k)) for k in _ACCUMULATED} if node is not None else {}
        try:
            return quantified.check(scope, q)
        except UnsupportedError as refused:
            # sets and maps, datatypes, inlined functions: :mod:`.unbounded`'s quantifiers
            if not unbounded.takes(scope, q):
                raise
            for k, n in kept.items():  # what the refused attempt checked is checked again
                del getattr(node, k)[n:]
            try:
                return unbounded.check(scope, q, str(refused))
            except UnsupportedError:
                raise refused from None


#: What checking an expression adds to its node (calls, memories, obligations, clocks).
_ACCUMULATED = ("calls", "pres", "obligations", "clocks", "props", "warnings")


class _Infinite(Exception):
    """A variable's domain is not a finite range (``error`` says so, located)."""

    def __init__(self, error: UnsupportedError) -> None:
        super().__init__(str(error))
        self.error = error


def _expand(scope: Scope, q: A.Quant) -> A.Expr:
    guards = _guard_conjuncts(q)
    domains: list[list[A.Expr]] = []
    refinements: list[Refinement | None] = []
    for p in q.params:
        t, ref = scope.c.resolve_type(p.type_expr, scope=scope if scope.node is not None else None)
        values = _domain(scope, q, p, t, ref, guards)
        if values is None:  # an infinite domain: an SMT quantifier where it can be
            return unbounded.check(scope, q, f"a quantifier over {t} other than a finite range "
                                   "(kinduct expands quantifiers over bool, enumerations and "
                                   "bounded integers)")
        domains.append(values)
        refinements.append(ref if ref.preds or ref.parts else None)
    if math.prod(len(d) for d in domains) > MAX_INSTANCES:
        raise _Infinite(_unsupported(scope, f"a quantifier of more than {MAX_INSTANCES} "
                                     "instances", q.pos))
    instances: list[A.Expr] = []
    for values in itertools.product(*domains):
        sub = scope.with_constants({p.name: v for p, v in zip(q.params, values, strict=True)})
        conds: list[A.Expr] = [Refines(v, r, pos=q.pos, ty=BOOL)
                               for v, r in zip(values, refinements, strict=True) if r is not None]
        calls = scope.node.calls if scope.node is not None else []
        with naming.element_instances(calls, [v.value for v in values]):  # one per value
            conds += [sub.expect(p.pred, BOOL) for p in q.params if p.pred is not None]
            body = sub.expect(q.body, BOOL)
        for c in reversed(conds):
            body = A.Binop("=>" if q.kind == "forall" else "and", c, body, pos=q.pos, ty=BOOL)
        instances.append(body)
    if not instances:
        return A.Lit(q.kind == "forall", "bool", pos=q.pos, ty=BOOL)
    acc = instances[0]
    for x in instances[1:]:
        acc = A.Binop("and" if q.kind == "forall" else "or", acc, x, pos=q.pos, ty=BOOL)
    return acc


def _domain(scope: Scope, q: A.Quant, p: A.Param, t: T, ref: Refinement,
            guards: list[A.Expr]) -> list[A.Expr] | None:
    """The values ``p`` ranges over, as checked literals (None: infinitely many)."""
    if t.kind == "bool":
        return [A.Lit(b, "bool", pos=p.pos, ty=BOOL) for b in (False, True)]
    if t.kind == "enum":
        return [A.Lit(i, "enum", pos=p.pos, ty=t) for i in range(len(t.items))]
    if t.kind == "int":
        lo, hi = ref.lo, ref.hi
        for g in guards:
            bound = _bound(scope, g, p.name)
            if bound is not None:
                op, value = bound
                if op == ">=":
                    lo = value if lo is None else max(lo, value)
                else:
                    hi = value if hi is None else min(hi, value)
        if isinstance(lo, int) and isinstance(hi, int):
            if hi - lo + 1 > MAX_INSTANCES:
                raise _Infinite(_unsupported(scope, f"a quantifier of more than {MAX_INSTANCES} "
                                             "instances", q.pos))
            return [A.Lit(i, "int", pos=p.pos, ty=INT) for i in range(lo, hi + 1)]
    raise _Infinite(_unsupported(scope, f"a quantifier over {t} other than a finite range "
                                 "(kinduct expands quantifiers over bool, enumerations and "
                                 "bounded integers, and decides a forall in a property or an "
                                 "exists in an assumption by a witness)", p.pos))


def _guard_conjuncts(q: A.Quant) -> list[A.Expr]:
    """The source conjuncts that bound the variables: the concise predicates, and the guard of
    an implication (``forall``) or the conjuncts of the body (``exists``)."""
    out: list[A.Expr] = []
    for p in q.params:
        if p.pred is not None:
            out.extend(_conjuncts(p.pred))
    body = q.body
    if q.kind == "forall" and isinstance(body, A.Binop) and body.op == "=>":
        out.extend(_conjuncts(body.left))
    elif q.kind == "exists":
        out.extend(_conjuncts(body))
    return out


def _conjuncts(e: A.Expr) -> list[A.Expr]:
    if isinstance(e, A.Binop) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _bound(scope: Scope, g: A.Expr, name: str) -> tuple[str, int] | None:
    """``(">=", lo)`` or ``("<=", hi)`` when the conjunct ``g`` compares the variable ``name``
    with a constant integer expression, else None."""
    if not (isinstance(g, A.Binop) and g.op in _FLIPPED):
        return None
    op, var, other = g.op, g.left, g.right
    if not _is_var(var, name):
        op, var, other = _FLIPPED[op], g.right, g.left
        if not _is_var(var, name):
            return None
    if _mentions(other, name) or has_temporal(other, calls=True):
        return None
    try:
        value = const_value(scope.expect(other, INT))
    except InputError:  # not an integer of this scope: no bound
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return {">=": (">=", value), ">": (">=", value + 1), "<=": ("<=", value),
            "<": ("<=", value - 1)}[op]


def _is_var(e: A.Expr, name: str) -> bool:
    return isinstance(e, A.Var) and e.name == name


def _mentions(e: A.Expr, name: str) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if _is_var(x, name):
            return True
        stack.extend(children(x))
    return False


def _unsupported(scope: Scope, what: str, pos: A.Pos) -> UnsupportedError:
    located = scope.c.err("", pos)
    return UnsupportedError(what, SourceLocation(scope.c.file, pos.line, pos.col),
                            located.source_line)
