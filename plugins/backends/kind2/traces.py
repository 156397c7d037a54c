"""Turning Kind 2's counterexample streams into a kinduct :class:`Trace`.

When kinduct printed the Lustre, every system variable is an input of the node, so Kind 2's
counterexample names them all and the mapping is exact.  When a Lucent file was passed through,
Kind 2 names source streams (inputs, outputs, maybe locals) and the frontend's internal state
variables are not among them: the values Kind 2 gives are pinned and an SMT solver fills in
the rest along init, trans and the assumptions.  If no execution of the system agrees with
Kind 2's values, the counterexample is rejected rather than trusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import SolverUnknown, constant
from kinduct.kernel.errors import KinductError
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Trace, Value


def _convert(var: FNode, value: Any) -> Value | None:
    t = var.symbol_type()
    try:
        if t.is_bool_type():
            return bool(value) if isinstance(value, bool) else None
        if t.is_int_type():
            f = Fraction(value)
            return int(f) if f.denominator == 1 else None
        if t.is_real_type():
            return Fraction(value)
    except (TypeError, ValueError):
        return None
    return None


def match_streams(system: TransitionSystem, streams: Mapping[str, Mapping[int, Any]], steps: int,
                  variables: Mapping[str, str] | None, block: str | None) -> list[dict[str, Value]]:
    """Per-step values of the system's variables that Kind 2's streams name."""
    by_name = {v.symbol_name(): v for v in system.current_vars}
    known: list[dict[str, Value]] = [{} for _ in range(steps)]
    for stream, values in streams.items():
        if variables is not None:
            candidates = [variables.get(stream, "")]
        else:
            candidates = [stream] + ([f"{block}.{stream}", f"{block}::{stream}", f"{block}_{stream}"]
                                     if block else [])
        name = next((c for c in candidates if c in by_name), None)
        if name is None:
            continue
        var = by_name[name]
        for k, raw in values.items():
            if 0 <= k < steps:
                value = _convert(var, raw)
                if value is not None:
                    known[k][name] = value
    return known


def complete_trace(system: TransitionSystem, known: list[dict[str, Value]],
                   prop: Property) -> tuple[Trace | None, str | None]:
    """A full trace agreeing with ``known`` that ends in a violation of ``prop``'s obligation,
    or (None, why not)."""
    names = [v.symbol_name() for v in system.current_vars]
    if all(all(n in step for n in names) for step in known):
        return Trace.of(known), None
    solver = None
    for candidate in ("z3", "cvc5"):
        try:
            solver = registry.backend(candidate).solver(system.env)
            break
        except KinductError:
            continue
    if solver is None:
        return None, "no SMT solver to complete a partial counterexample"
    n = len(known)
    unroll = Unroller(system)
    mgr = system.env.formula_manager
    try:
        solver.add(unroll.at(system.init, 0))
        for k in range(n):
            for a in system.assumptions:
                solver.add(unroll.at(a, k))
            if k + 1 < n:
                solver.add(unroll.at(system.trans, k))
            for var in system.current_vars:
                name = var.symbol_name()
                if name in known[k]:
                    solver.add(mgr.Equals(unroll.timed(var, k), constant(mgr, var, known[k][name]))
                               if not var.symbol_type().is_bool_type() else
                               mgr.Iff(unroll.timed(var, k), mgr.Bool(bool(known[k][name]))))
        solver.add(mgr.Not(unroll.at(prop.obligation(system.env), n - 1)))
        if not solver.check():
            return None, "no execution of the system has these values"
        steps = []
        for k in range(n):
            timed = unroll.step_vars(k)
            values = solver.values(timed)
            steps.append({v.symbol_name(): values[t] for v, t in zip(system.current_vars, timed,
                                                                     strict=True)})
        return Trace.of(steps), None
    except SolverUnknown as exc:
        return None, f"the solver could not complete it ({exc})"
    finally:
        solver.close()
