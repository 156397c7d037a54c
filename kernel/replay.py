"""Replaying a trace on a system's own init, trans and assumptions (DESIGN §9).

A counterexample is printed only after it replays: init holds at step 0, every assumption holds
at every step, trans holds between consecutive steps, and the property fails at the last step.
"""

from __future__ import annotations

from pysmt.fnode import FNode

from kinduct.kernel.backend import constant
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Trace


def _step_constants(system: TransitionSystem, trace: Trace, k: int) -> dict[FNode, FNode]:
    mgr = system.env.formula_manager
    values = trace.steps[k]
    out: dict[FNode, FNode] = {}
    for var in system.current_vars:
        name = var.symbol_name()
        if name in values:
            out[var] = constant(mgr, var, values[name])
    return out


def _holds(system: TransitionSystem, formula: FNode, mapping: dict[FNode, FNode]) -> bool | None:
    value = system.env.simplifier.simplify(system.env.substituter.substitute(formula, mapping))
    if value.is_bool_constant():
        return value.constant_value()
    return None  # some variable had no value: cannot decide


def replay_trace(system: TransitionSystem, trace: Trace, prop: Property,
                 expect_violation_at_end: bool = True) -> str | None:
    """None when ``trace`` is a genuine execution ending in a violation of ``prop``'s
    obligation; otherwise a message saying where it breaks."""
    if len(trace) == 0:
        return "empty trace"
    steps = [_step_constants(system, trace, k) for k in range(len(trace))]
    if _holds(system, system.init, steps[0]) is not True:
        return "init does not hold at step 0"
    for k, consts in enumerate(steps):
        for assumption in system.assumptions:
            if _holds(system, assumption, consts) is not True:
                return f"an assumption fails at step {k}"
        if k + 1 < len(steps):
            both = dict(consts)
            nxt = steps[k + 1]
            for cur, nv in zip(system.state_vars, system.next_vars, strict=True):
                if cur in nxt:
                    both[nv] = nxt[cur]
            if _holds(system, system.trans, both) is not True:
                return f"trans does not hold between steps {k} and {k + 1}"
    if expect_violation_at_end:
        obligation = prop.obligation(system.env)
        if _holds(system, obligation, steps[-1]) is not False:
            return f"property {prop.name} is not violated at the last step {len(steps) - 1}"
    return None
