"""Quantifier elimination for choices: the condition on the other variables under which some
value of the chosen ones satisfies a constraint (used by ``choice`` for scalars and by
``symchoice`` for arrays of symbolic size)."""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.environment import Environment
from pysmt.fnode import FNode


def possible(env: Environment, chosen: Sequence[FNode], constraint: FNode) -> FNode | None:
    """A quantifier-free formula equivalent to ``exists chosen. constraint`` in ``env``, or
    None where z3 cannot eliminate the quantifier (the caller then assumes ``constraint``)."""
    if not set(chosen) & env.fvo.get_free_variables(constraint):
        return constraint
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
