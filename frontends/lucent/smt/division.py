"""The translation of Lucent's division operators (``/``, ``div``, ``mod``) into linear
arithmetic where it can: by a non-zero constant, a multiplication or one shared
quotient/remainder pair per dividend; by a stream, fresh quotient and remainder variables
constrained where the divisor is not zero (the result of a division by zero is unconstrained,
as in Kind 2, and no obligation is made)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.translate import Inst


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
        tr.by_zero.append(("/", a, b, d))
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
        tr.by_zero.append((e.op, a, b, r if e.op == "mod" else q))
    return r if e.op == "mod" else q


#: Beyond this many divisions by streams, no congruence is added (quadratic in their number):
#: a counterexample that divides one value by zero with two results is then unknown on replay.
MAX_CONGRUENT = 40


def congruence(mgr, by_zero: list[tuple[str, FNode, FNode, FNode]]) -> list[FNode]:
    """Division is a function, also by zero (SMT-LIB leaves ``x div 0`` unspecified but one
    value per ``x``): two divisions of one kind by zero at one step with equal dividends have
    equal results.  (Across steps this is left to replay, as for imported functions.)"""
    if len(by_zero) > MAX_CONGRUENT:
        return []
    out = []
    for i, (op1, a1, b1, r1) in enumerate(by_zero):
        zero = mgr.Real(0) if op1 == "/" else mgr.Int(0)
        for op2, a2, b2, r2 in by_zero[i + 1:]:
            if op2 == op1:
                out.append(mgr.Implies(mgr.And(mgr.Equals(b1, zero), mgr.Equals(b2, zero),
                                               mgr.Equals(a1, a2)), mgr.Equals(r1, r2)))
    return out
