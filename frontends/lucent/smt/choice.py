"""When ``any { v: T | p }`` can choose: the condition on the other streams under which some
value of ``v`` satisfies ``p`` (and ``T``'s refinement); and what ``choose { v: T | p }``
is a function of.

Kind 2 lets ``any`` pick an arbitrary value where no value satisfies its predicate, instead of
ruling such a step out (``any { v: int | v < x and v >= x }`` leaves ``x`` free); the
translation therefore assumes the predicate only under this condition, computed here by z3's
quantifier elimination over the linear arithmetic of the predicate.

``choose`` is ``any`` made a function of the values its predicate reads besides ``v``
(:func:`arguments`: the largest subexpressions of ``p`` that do not read ``v``, streams,
``pre`` of them, a quantifier's witness); ``choose@<T>`` reads nothing, so it is one value for
the whole run.  The translation ties the choices like the results of an imported function
(``Translator.congruence``: equal arguments give equal values at one step and between adjacent
steps); the simulator records every choice and a counterexample that reads one choice as two
values for equal arguments further apart is ``unknown`` with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.clocks import clock_of
from kinduct.frontends.lucent.core.types import leaves
from kinduct.frontends.lucent.smt.exists import possible

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst, STerm, Translator


class Mark:
    """Where the translation stood before the predicate of an ``any``: what translating the
    predicate adds is chosen with the value.  That is the auxiliary streams it defines at each
    step (a division's quotient and remainder, a nested choice) under the constraints that
    define them, and, for an ``any`` that calls a node on its variable
    (:func:`.streamrefine.calls_on_any`), the current values of the instances made since,
    which run on the value picked (their memories stay given: the instances' pasts)."""

    def __init__(self, tr: Translator, calls_on_var: bool = False) -> None:
        self.tr = tr
        self.calls_on_var = calls_on_var
        self.prefixes = set(tr.insts)
        self.assumed = len(tr.assumptions)
        self.known = set(tr.next_of)
        self.transitions = tr.b.transition_count()

    def possible(self, chosen: Sequence[FNode], want: FNode) -> FNode | None:
        """:func:`possible` for ``chosen`` and what the predicate added (see the class)."""
        tr = self.tr
        temporal = tr.b.temporal_since(self.transitions)
        aux = [s for s in tr.next_of if s not in self.known and s not in temporal]
        streams = [x for p, inst in tr.insts.items() if p not in self.prefixes
                   for term in inst.env.values() for x in leaves(term)
                   if isinstance(x, FNode) and x.is_symbol()] if self.calls_on_var else []
        every = {*chosen, *aux, *streams}
        fvo = tr.b.env.fvo
        defs = [d for d in tr.assumptions[self.assumed:]
                if self.calls_on_var or every & fvo.get_free_variables(d)]
        return possible(tr.b.env, [*chosen, *aux, *streams], tr.mgr.And([*defs, want]))


def translate(inst: Inst, e: A.AnyE) -> STerm:
    """``any``/``choose`` ``e`` in the node instance ``inst``: a fresh stream, its type's
    refinement and predicate assumed where a value can satisfy them (Kind 2: arbitrary where
    none can); a ``choose`` tied to its arguments as a function."""
    from kinduct.frontends.lucent.smt import collections_smt, refine
    tr, mgr = inst.tr, inst.mgr
    var = inst.fresh(e.uid, e.ty)
    guard, tr.guard = tr.guard, inst.clocks.active_of(clock_of(e))
    ref = getattr(e, "ref", None)
    mark = Mark(tr, calls_on_var=getattr(e, "calls_on_var", False))
    parts = [] if ref is None or ref.empty else refine.constraints(  # of T
        inst, var, ref, stream=None if e.functional else e.uid)
    if e.pred is not None:
        saved = inst.env.get(e.var)
        inst.env[e.var] = var
        parts.append(inst.expr(e.pred))
        if saved is None:
            del inst.env[e.var]
        else:
            inst.env[e.var] = saved
    if parts:
        want = mgr.And(parts)
        can = mark.possible(leaves(var), want)
        if can is None:
            from kinduct.frontends.lucent.smt import symchoice
            can = symchoice.possible(tr.b.env, leaves(var), want)
        tr.assume(want if can is None else mgr.Implies(can, want))
    if e.functional:  # choose: a function of what its predicate reads
        args = getattr(e, "args", [])
        if any(collections_smt.structural(t) for t in [a.ty for a in args] + [e.ty]):
            collections_smt.congruence(inst, f"%choose.{e.uid}",
                                       [(inst.expr(a), a.ty) for a in args], [(var, e.ty)])
        else:
            tr.congruence(f"%choose.{e.uid}", [x for a in args for x in leaves(inst.expr(a))],
                          leaves(var))
    tr.guard = guard
    return var
