"""Quantified formulas on the simulator: decided by z3 on the values of their free
subexpressions (the formula is ``core.quantified``'s)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.checked import Quantified
from kinduct.frontends.lucent.core.quantified import translate
from kinduct.frontends.lucent.core.types import (
    Adt,
    T,
    adt_fields,
    recursive,
)

if TYPE_CHECKING:
    pass

#: Seconds z3 may take to decide one closed quantified formula in the simulator.


#: Seconds z3 may take to decide one closed quantified formula in the simulator.
DECIDE_SECONDS = 20


class Undecided(Exception):
    """The simulator could not decide a quantified formula (z3 answered unknown)."""


def evaluate(e: Quantified, value_of: Callable[[A.Expr], Any],
             domain: Callable[[str], list[int] | None] | None = None) -> bool:
    """Whether ``e`` holds when its free subexpressions have the values ``value_of`` gives
    them (the simulator's), decided by z3; :class:`Undecided` where z3 cannot tell or an
    abstract type's ``domain`` is not a finite list of values."""
    env = Environment()
    mgr = env.formula_manager

    def outside(x: A.Expr) -> Any:
        return _constant(mgr, value_of(x), x.ty)

    def member(tname: str, term: FNode) -> FNode:
        values = None if domain is None else domain(tname)
        if values is None:
            raise Undecided(f"the domain of the abstract type {tname} on the trace is not a "
                            "finite set of values")
        return mgr.Or([mgr.Equals(term, mgr.Int(v)) for v in values])

    formula = translate(mgr, e, outside, member)
    try:
        solver = env.factory.Solver(name="z3")
    except Exception as exc:  # noqa: BLE001 - no z3: nothing decides it here
        raise Undecided(f"no solver to decide a quantified formula: {exc}") from None
    try:
        solver.z3.set("timeout", int(DECIDE_SECONDS * 1000))
        solver.add_assertion(formula)
        return bool(solver.solve())
    except Exception as exc:  # noqa: BLE001 - z3's unknown, or a term it refuses
        raise Undecided(f"z3 could not decide the quantified formula at {e.pos.line}:"
                        f"{e.pos.col} on the trace's values ({type(exc).__name__})") from None
    finally:
        solver.exit()


def _constant(mgr: Any, v: Any, t: T) -> Any:
    if t.kind == "bool":
        return mgr.Bool(bool(v))
    if t.kind == "real":
        return mgr.Real(Fraction(v))
    if t.kind in ("int", "enum", "abstract"):
        return mgr.Int(int(v))
    if t.kind == "record":
        return {f: _constant(mgr, v[f], ft) for f, ft in t.items}
    if t.kind == "tuple":
        return [_constant(mgr, x, it) for x, it in zip(v, t.items, strict=True)]
    if t.kind == "array":
        return [_constant(mgr, x, t.items[0]) for x in v]
    if t.kind == "adt" and not recursive(t):
        return Adt({"%tag": mgr.Int(int(v["%tag"])),
                    **{k: _constant(mgr, v[k], ft) for k, ft in adt_fields(t)}}, t)
    raise Undecided(f"a value of type {t} inside a quantified formula")
