"""When ``any { v: T | p }`` can choose: the condition on the other streams under which some
value of ``v`` satisfies ``p`` (and ``T``'s refinement).

Kind 2 lets ``any`` pick an arbitrary value where no value satisfies its predicate, instead of
ruling such a step out (``any { v: int | v < x and v >= x }`` leaves ``x`` free); the
translation therefore assumes the predicate only under this condition, computed here by z3's
quantifier elimination over the linear arithmetic of the predicate.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.environment import Environment
from pysmt.fnode import FNode


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
