"""Checked expressions to terms: one case per construct (:meth:`Inst.expr
<kinduct.frontends.lucent.smt.translate.Inst.expr>` memoises and dispatches here).

The core operators are translated here; a feature's constructs go to its module (``machine``,
``division``, ``symarrays``, ``recursive``, ``choice``, ``unbounded``, ``collections_smt``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import BoundRead, SymDef, UQuant
from kinduct.frontends.lucent.core.clocks import clock_of
from kinduct.frontends.lucent.core.types import Adt, adt_fields, leaves, recursive_type
from kinduct.frontends.lucent.smt import (
    choice,
    collections_smt,
    machine,
    recursive,
    symarrays,
    unbounded,
)
from kinduct.frontends.lucent.smt.division import division

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst


def translate(inst: Inst, e: A.Expr) -> Any:  # noqa: C901 - one case per construct
    """The term of ``e`` (a scalar term, or a list / dict of terms) in the instance ``inst``."""
    mgr = inst.mgr
    if isinstance(e, A.Unop):
        if e.op == "pre":
            return inst.pre(e)
        a = inst.expr(e.arg)
        if e.ty.kind == "machine" or e.arg.ty.kind == "machine":
            return machine.translate_unop(inst, e, a)
        if e.op == "not":
            return mgr.Not(a)
        if e.op == "neg":
            return mgr.Minus(mgr.Int(0) if e.ty.kind == "int" else mgr.Real(0), a)
        if e.op == "to_real":
            return a if e.arg.ty.kind == "real" else mgr.ToReal(a)
        if e.op == "to_int":
            if e.arg.ty.kind == "int":
                return a
            i = inst.fresh(e.uid, e.ty)
            inst.tr.assume(mgr.And(mgr.LE(mgr.ToReal(i), a),
                                             mgr.LT(a, mgr.Plus(mgr.ToReal(i), mgr.Real(1)))))
            return i
    if isinstance(e, A.Binop):
        op = e.op
        if op == "->":
            return inst.ite(inst.clocks.first_of(clock_of(e)), inst.expr(e.left), inst.expr(e.right))
        a = inst.expr(e.left)
        b = inst.expr(e.right)
        if e.left.ty.kind == "machine" and op not in ("=", "<>"):
            return machine.translate_binop(mgr, e, a, b)
        if op == "and":
            return mgr.And(a, b)
        if op == "or":
            return mgr.Or(a, b)
        if op == "xor":
            return mgr.Not(mgr.Iff(a, b))
        if op == "=>":
            return mgr.Implies(a, b)
        if op in ("=", "<>") and collections_smt.contains_container(e.left.ty):
            eq = collections_smt.same(inst, a, b, e.left.ty)
            return eq if op == "=" else mgr.Not(eq)
        if op == "=":
            return inst.same(a, b)
        if op == "<>":
            return mgr.Not(inst.same(a, b))
        if op in ("<", "<=", ">", ">="):
            return {"<": mgr.LT, "<=": mgr.LE, ">": mgr.GT, ">=": mgr.GE}[op](a, b)
        if op == "+":
            return mgr.Plus(a, b)
        if op == "-":
            return mgr.Minus(a, b)
        if op == "*":
            return mgr.Times(a, b)
        if op in ("/", "div", "mod"):
            return division(inst, e, a, b)
    if isinstance(e, A.Ite):
        return inst.ite(inst.expr(e.cond), inst.expr(e.then), inst.expr(e.orelse))
    if isinstance(e, A.Call):
        return inst.call(e)
    if isinstance(e, (A.TupleE, A.ArrayLit)):
        return [inst.expr(x) for x in e.items]
    if isinstance(e, A.Index):
        if e.arg.ty.kind == "symarray" or isinstance(e, BoundRead):
            return symarrays.read(inst, e)
        a = inst.expr(e.arg)
        if e.arg.ty.kind == "tuple":
            return a[e.index.value]
        i = inst.tr.b.env.simplifier.simplify(inst.expr(e.index))
        if i.is_constant() and 0 <= i.constant_value() < len(a):
            return a[i.constant_value()]
        # out of range, the read is unspecified (as in Kind 2), never clamped; within a
        # step, a function of the array read and the index (``outside_reads``)
        acc = inst.tr.input(inst.prefix + e.uid, e.ty)
        array = tuple(x for elem in a for x in leaves(elem))
        inst.tr.outside_reads.setdefault(array, []).append((i, leaves(acc)))
        if i.is_constant():
            return acc
        for k in range(len(a) - 1, -1, -1):
            acc = inst.ite(mgr.Equals(i, mgr.Int(k)), a[k], acc)
        return acc
    if isinstance(e, (A.Caret, SymDef)) or e.ty.kind == "symarray" and \
            isinstance(e, A.Update):
        return symarrays.translate(inst, e)
    if isinstance(e, A.Update):
        a = inst.expr(e.arg)
        i = inst.expr(e.index)
        v = inst.expr(e.value)
        return [inst.ite(mgr.Equals(i, mgr.Int(k)), v, x) for k, x in enumerate(a)]
    if isinstance(e, A.Field):
        if recursive_type(e.arg.ty):
            return recursive.select(inst, e, inst.expr(e.arg))
        return inst.expr(e.arg)[e.name]
    if isinstance(e, A.RecordLit):
        return {f: inst.expr(x) for f, x in e.fields}
    if isinstance(e, A.Construct) and recursive_type(e.ty):
        return recursive.construct(inst.tr.b.env, e, [inst.expr(a) for a in e.args])
    if isinstance(e, A.Tester) and recursive_type(e.arg.ty):
        return recursive.test(inst.tr.b.env, e, inst.expr(e.arg))
    if isinstance(e, A.Construct):  # other constructors' fields: arbitrary
        own = {f: a for (f, _), a in zip(e.ty.items[e.index][1], e.args, strict=True)}
        return Adt({"%tag": mgr.Int(e.index), **{
            k: inst.expr(own[k.split(".", 1)[1]]) if k.startswith(f"{e.ctor}.")
            else inst.fresh(f"{e.uid}.{k}", ft) for k, ft in adt_fields(e.ty)}}, e.ty)
    if isinstance(e, A.Tester):
        index = next(i for i, (c, _) in enumerate(e.arg.ty.items) if c == e.ctor)
        return mgr.Equals(inst.expr(e.arg)["%tag"], mgr.Int(index))
    if isinstance(e, A.AnyE):
        return choice.translate(inst, e)
    if isinstance(e, UQuant):
        return unbounded.translate(inst, e)
    return collections_smt.translate(inst, e)
