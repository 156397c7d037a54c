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

from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.frontends.lucent import ast as A
from kinduct.frontends.lucent.walk import children


def arguments(pred: A.Expr, var: str) -> list[A.Expr]:
    """The largest subexpressions of ``pred`` that do not read ``var`` (literals left out):
    what ``choose { var: T | pred }`` is a function of."""
    out: list[A.Expr] = []

    def reads(e: A.Expr) -> bool:
        if isinstance(e, A.Var) and e.name == var:
            return True
        if isinstance(e, A.AnyE) and e.pred is not None and e.var != var:
            return reads(e.pred)
        return any(reads(c) for c in children(e))

    stack = [pred]
    while stack:
        e = stack.pop()
        if not reads(e):
            if not isinstance(e, A.Lit):
                out.append(e)
        else:
            stack.extend(reversed(children(e)))
    return out


def possible(env: Environment, chosen: Sequence[FNode], constraint: FNode) -> FNode | None:
    """A quantifier-free formula equivalent to ``exists chosen. constraint`` in ``env``, or
    None where z3 cannot eliminate the quantifier (the caller then assumes ``constraint``)."""
    if not set(chosen) & env.fvo.get_free_variables(constraint):
        return env.formula_manager.TRUE()
    try:
        import z3
        from pysmt.solvers.z3 import Z3Converter

        ctx = z3.Context()
        convert = Z3Converter(env, ctx)
        query = z3.Exists([convert.convert(v) for v in chosen], convert.convert(constraint))
        back = convert.back(z3.Tactic("qe", ctx)(query).as_expr())
        return back if env.qfo.is_qf(back) else None
    except Exception:  # noqa: BLE001 - a theory or term z3's elimination or PySMT cannot take
        return None
