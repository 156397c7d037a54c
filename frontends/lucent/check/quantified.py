"""Quantifiers over unbounded domains kept as SMT quantifiers: those neither expanded over a
finite domain (:mod:`.quantifiers`) nor decided by a witness stream (:mod:`.skolem`), such as
an ``exists`` in a property, a ``forall`` in an assumption, or one in a contract or in a
refinement type's predicate.

The checked form is :class:`~.checked.Quantified`.  Its body is translated into one SMT term
of the quantified variables (``ForAll``/``Exists`` over fresh symbols, a leaf each), guarded by
their refinement types and concise predicates (``=>`` under ``forall``, ``and`` under
``exists``); an enumeration's variable ranges over its values' indices.  The subexpressions
that read no quantified variable are translated as usual (streams, ``pre``, calls).  Those
that read one must be terms: Boolean, arithmetic (``+ - *``, comparisons), ``if``, records,
tuples, arrays read at constant indices, constructors and testers of non-recursive datatypes
(equal when their tags and the tag's constructor's fields are), nested quantifiers; anything
that needs streams of its own (a call, a division, ``any``, ``pre``, an array read at a
variable index, machine integers), a recursive datatype's term or a selector's obligation is
refused, located.  A variable of an abstract type ranges over the type's domain
(:mod:`.domains`), which the simulator reads from the trace.

The simulator cannot enumerate such a domain: it evaluates the closed formula, with the
step's values for the streams, by a call to z3 (:func:`evaluate`); where z3 answers unknown it
raises :class:`Undecided`, and the replay makes the verdict ``unknown`` with that reason.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Bound, ConstRef, Quantified, Refines
from kinduct.frontends.lucent.core.quantified import SCALARS, plain, reads
from kinduct.frontends.lucent.core.types import (
    BOOL,
    Refinement,
    T,
    recursive,
)
from kinduct.frontends.lucent.core.walk import children
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.check.scope_api import Scope


_TERM_BINOPS = {"and", "or", "xor", "=>", "=", "<>", "<", "<=", ">", ">=", "+", "-", "*"}


def check(scope: Scope, q: A.Quant) -> Quantified:
    """The checked quantifier ``q`` kept as such; an :class:`UnsupportedError` where its
    variables' types or its body are beyond what :func:`translate` takes."""
    params: list[Bound] = []
    start = len(scope.node.obligations) if scope.node is not None else 0
    sub = copy.copy(scope)
    sub.env = dict(scope.env)
    sub.local_consts = dict(scope.local_consts)
    for p in q.params:
        t, ref = scope.c.resolve_type(p.type_expr)
        bad = _bad_type(t)
        if bad is not None:
            raise _unsupported(scope, f"a quantifier over {bad} (kinduct keeps a quantifier "
                               "over bool, int, real, enumerations and their records, tuples "
                               "and arrays as such; over other types it decides only a forall "
                               "in a property or an exists in an assumption)", p.pos)
        sub.env = {**sub.env, p.name: t}
        sub.local_consts.pop(p.name, None)
        pred = sub.expect(p.pred, BOOL) if p.pred is not None else None
        params.append(Bound(p.name, t, ref, pred))
    body = sub.expect(q.body, BOOL)
    e = Quantified(q.kind, params, body, pos=q.pos, ty=BOOL)
    names = {b.name for b in params}
    for p in scope.node.obligations[start:] if scope.node is not None else []:
        if reads(p.expr, names):
            raise _unsupported(scope, f"an obligation ({p.name}) on the variable of a "
                               "quantifier kinduct keeps as such", p.pos)
    for part in [*(b.pred for b in params if b.pred is not None), body]:
        offending = _impure(part, names)
        if offending is not None:
            raise _unsupported(scope, "this expression on the variable of a quantifier kinduct "
                               "keeps as such (inside one, only Boolean and linear terms, "
                               "records, tuples, constant array indices, and constructors and "
                               "testers of non-recursive datatypes read its variables)",
                               offending.pos)
    for b in params:
        for var, pred in b.ref.preds:
            offending = _impure(pred, {var})
            if offending is not None:
                raise _unsupported(scope, "a refinement type whose predicate is no term, on the "
                                   "variable of a quantifier kinduct keeps as such", b.pred.pos
                                   if b.pred is not None else q.pos)
    return e


def inputs_covered(callee: Any, args: list[A.Expr], bounds: dict[str, Refinement]) -> bool:
    """Whether ``callee`` constrains only its inputs' types, each where its argument is a
    quantified variable (of ``bounds``) whose own type implies the input's (the same
    predicates, bounds as tight), so that inlining the call loses no obligation: the
    quantifier ranges over values of the variable's type only."""
    if not callee.refinements:
        return False
    given = dict(zip(callee.inputs, args, strict=True))
    for name, need in callee.refinements.items():
        if name == callee.outputs[0] and name not in given:
            if not _output_implied(callee, need):
                return False
            continue
        arg = given.get(name)
        if not isinstance(arg, A.Var) or arg.name not in bounds or need.parts:
            return False
        have = bounds[arg.name]
        if need.lo is not None and (have.lo is None or have.lo < need.lo):
            return False
        if need.hi is not None and (have.hi is None or have.hi > need.hi):
            return False
        if not all(any(p is q for _, q in have.preds) for _, p in need.preds):
            return False
    return True


def _output_implied(callee: Any, need: Refinement) -> bool:
    """Whether the bounds ``need`` of ``callee``'s output hold for every input within its
    type, by interval arithmetic on its one defining expression (its output type then owes
    nothing at any call, and inlining the call loses no obligation)."""
    if need.preds or need.parts:
        return False
    ranges = {n: (r.lo, r.hi) for n, r in callee.refinements.items()
              if n in callee.inputs and not r.preds and not r.parts}
    defs = {names[0]: e for names, e in callee.eqs}
    lo, hi = _interval(defs.get(callee.outputs[0]), ranges, callee.inputs)
    return (need.lo is None or lo is not None and lo >= need.lo) and \
        (need.hi is None or hi is not None and hi <= need.hi)


def _interval(e: A.Expr | None, ranges: dict[str, tuple[Any, Any]],
              inputs: list[str]) -> tuple[Any, Any]:
    """Integer bounds of ``e`` (None: unbounded on that side) over inputs in ``ranges``."""
    none: tuple[Any, Any] = (None, None)
    if isinstance(e, A.Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value, e.value
    if isinstance(e, A.Var):
        return ranges.get(e.name, none) if e.name in inputs else none
    if isinstance(e, A.Unop) and e.op == "neg":
        lo, hi = _interval(e.arg, ranges, inputs)
        return (None if hi is None else -hi), (None if lo is None else -lo)
    if isinstance(e, A.Binop) and e.op in ("+", "-"):
        a = _interval(e.left, ranges, inputs)
        b = _interval(e.right, ranges, inputs)
        if e.op == "-":
            b = (None if b[1] is None else -b[1]), (None if b[0] is None else -b[0])
        return (None if a[0] is None or b[0] is None else a[0] + b[0],
                None if a[1] is None or b[1] is None else a[1] + b[1])
    return none


def _bad_type(t: T) -> str | None:
    if t.kind in SCALARS:
        return None
    if t.kind in ("record", "tuple", "array"):
        items = [ft for _, ft in t.items] if t.kind == "record" else list(t.items)
        return next((b for b in map(_bad_type, items) if b is not None), None)
    return None if t.kind == "abstract" else f"{t.kind} type {t}"  # over its domain: .domains


def _impure(e: A.Expr, names: set[str]) -> A.Expr | None:
    """The first subexpression of ``e`` that reads one of ``names`` and is not a term."""
    if not reads(e, names):
        return None
    if recursive(e.ty) or isinstance(e, (A.Field, A.Tester)) and recursive(e.arg.ty) or \
            isinstance(e, A.Construct) and not plain(e.ty):
        return e  # a native SMT datatype's term, or fields beyond scalars
    ok = (isinstance(e, (A.Lit, A.Var, ConstRef, A.TupleE, A.ArrayLit, A.Field, A.RecordLit,
                         A.Construct, A.Tester))
          or (isinstance(e, A.Unop) and e.op in ("not", "neg", "to_real"))
          or (isinstance(e, A.Binop) and e.op in _TERM_BINOPS)
          or (isinstance(e, A.Ite) and not e.lazy)
          or (isinstance(e, A.Index) and (e.arg.ty.kind == "tuple"
                                          or isinstance(e.index, A.Lit)))
          or isinstance(e, (Refines, Quantified)))
    if not ok or getattr(e.ty, "kind", None) == "machine":
        return e
    if isinstance(e, Quantified):
        names = names - {b.name for b in e.params}
    for c in children(e):
        bad = _impure(c, names)
        if bad is not None:
            return bad
    return None


def _unsupported(scope: Scope, what: str, pos: A.Pos) -> UnsupportedError:
    located = scope.c.err("", pos)
    return UnsupportedError(what, SourceLocation(scope.c.file, pos.line, pos.col),
                            located.source_line)
