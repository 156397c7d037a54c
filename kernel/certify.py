"""Checking inductive-invariant certificates of valid verdicts.

A certificate ``Inv`` (over current state variables) proves the invariant property ``P`` when

1. ``Init and A => Inv``           (it holds initially),
2. ``Inv and A and T => Inv'``     (it is preserved by every step),
3. ``Inv and A => P``              (it implies the property at every step),

where ``A`` are the system's assumptions.  Engines run this check on a fresh solver before they
report ``valid``; ``--certify`` runs it again with the *other* backend so that one solver's bug
cannot produce an unsound proof unnoticed.
"""

from __future__ import annotations

from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import Property, TransitionSystem


def check_invariant(system: TransitionSystem, prop: Property, inv: FNode, solver: Solver) -> str | None:
    """None when ``inv`` certifies ``prop``; otherwise which of the three conditions fails."""
    env = system.env
    mgr = env.formula_manager
    free = env.fvo.get_free_variables(inv)
    allowed = {*system.state_vars, *system.rigid_symbols()}
    if not free <= allowed:
        extra = sorted(v.symbol_name() for v in free - allowed)
        return f"certificate mentions non-state variables: {', '.join(extra)}"
    assumptions = mgr.And(system.assumptions)
    inv_next = env.substituter.substitute(inv, system.next_map())
    goal = prop.obligation(env)
    conditions = (
        ("initiation", mgr.And(system.init, assumptions, mgr.Not(inv))),
        ("consecution", mgr.And(inv, assumptions, system.trans, mgr.Not(inv_next))),
        ("safety", mgr.And(inv, assumptions, mgr.Not(goal))),
    )
    for label, query in conditions:
        solver.reset()
        solver.add(query)
        try:
            if solver.check():
                return f"{label} fails"
        except SolverUnknown as exc:
            return f"{label}: solver returned unknown ({exc})"
    return None


def certify(system: TransitionSystem, prop: Property, invariant_text: str, backend: str) -> str | None:
    """Re-check an SMT-LIB certificate with ``backend``; None when it holds, else the failure."""
    from kinduct.kernel import registry

    try:
        (inv,) = parse_lemmas(system, [invariant_text])
    except Exception as exc:  # a malformed certificate is a failed certificate
        return f"certificate does not parse: {exc}"
    solver = registry.backend(backend).solver(system.env)
    try:
        return check_invariant(system, prop, inv, solver)
    finally:
        solver.close()
