"""The translation of Lucent's division operators (``/``, ``div``, ``mod``) into linear
arithmetic where it can: by a non-zero constant, a multiplication or one shared
quotient/remainder pair per dividend; by a stream (or by the constant 0), fresh quotient and
remainder variables constrained where the divisor is not zero, and equal to two uninterpreted
functions of the dividend and the divisor everywhere (``Translator.function``): division is a
function at every distance in time, also by zero, where its result is otherwise unspecified (as
in Kind 2, which proves ``x div w = x div w``; no obligation is made). The quotient and the
remainder of one pair of operand terms are one pair of variables (a `div` beside a `mod`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst


def division(inst: Inst, e: A.Binop, a: FNode, b: FNode) -> FNode:
    """``a op b`` for the division ``e`` (``/`` on reals, ``div`` or ``mod`` on integers: SMT-LIB's
    Euclidean division) translated in the node instance ``inst``."""
    mgr, tr = inst.mgr, inst.tr
    simp = tr.b.env.simplifier.simplify(b)
    if e.ty.kind == "real":
        if simp.is_constant() and simp.constant_value() != 0:
            return mgr.Times(a, mgr.Real(1 / Fraction(simp.constant_value())))
        d = inst.fresh(e.uid, e.ty)
        tr.assume(mgr.Implies(mgr.Not(mgr.Equals(b, mgr.Real(0))), mgr.Equals(mgr.Times(d, b), a)))
        tr.assume(mgr.Equals(d, tr.function("%div./", [a, b], d.get_type())))
        return d
    if simp.is_constant() and simp.constant_value() != 0:
        c = simp.constant_value()
        if c in (1, -1):
            return (mgr.Int(0) if e.op == "mod" else
                    a if c == 1 else mgr.Minus(mgr.Int(0), a))
        # division by a constant is a function of the dividend: equal dividends share
        # one quotient/remainder pair (generated models repeat "x div 60" many times), whose
        # definition always holds (it is shared with the steps where a lazy branch is not
        # selected, and it is satisfiable)
        key = (a, c)
        if key not in tr.divisions:
            # one occurrence may divide several dividends (a refinement type's predicate,
            # applied to each value of the type): each pair gets names of its own
            name, n = e.uid, 0
            while naming.quotient(inst.prefix + name) in mgr.symbols:
                n += 1
                name = f"{e.uid}#{n}"
            q = inst.fresh(naming.quotient(name), e.ty)
            r = inst.fresh(naming.remainder(name), e.ty)
            guard, tr.guard = tr.guard, None
            tr.assume(mgr.And(
                mgr.Equals(a, mgr.Plus(mgr.Times(mgr.Int(c), q), r)),
                mgr.GE(r, mgr.Int(0)), mgr.LT(r, mgr.Int(abs(c)))))
            tr.guard = guard
            tr.divisions[key] = (q, r)
        q, r = tr.divisions[key]
        return r if e.op == "mod" else q
    q = inst.fresh(naming.quotient(e.uid), e.ty)
    r = inst.fresh(naming.remainder(e.uid), e.ty)
    if not simp.is_constant():
        absb = mgr.Ite(mgr.GE(b, mgr.Int(0)), b, mgr.Minus(mgr.Int(0), b))
        tr.assume(mgr.Implies(mgr.Not(mgr.Equals(b, mgr.Int(0))), mgr.And(
            mgr.Equals(a, mgr.Plus(mgr.Times(b, q), r)), mgr.GE(r, mgr.Int(0)), mgr.LT(r, absb))))
    if q.get_type().is_int_type():
        # every division of one dividend by one divisor (a `div` and a `mod` of the same
        # operands, as in `(e div n) * n + e mod n = e`) shares its quotient and remainder:
        # without it, their equality is a non-linear fact (the uniqueness of the Euclidean
        # division) the solvers seldom find. Equal operands, equal results, at every step
        # and in every branch (each pair is a function of the operands), so unguarded.
        first = tr.divisions.setdefault((a, b), (q, r))
        if first != (q, r):
            guard, tr.guard = tr.guard, None
            tr.assume(mgr.And(mgr.Equals(q, first[0]), mgr.Equals(r, first[1])))
            tr.guard = guard
    if q.get_type().is_int_type():  # machine integers wrap: their own semantics
        # both the quotient and the remainder are functions of the operands, whichever the
        # operator: a `div` and a `mod` of operands equal in value (two reads of `a[i]` out
        # of range) share them, at every distance in time
        tr.assume(mgr.Equals(q, tr.function("%div.q", [a, b], q.get_type())))
        tr.assume(mgr.Equals(r, tr.function("%div.r", [a, b], r.get_type())))
    return r if e.op == "mod" else q
