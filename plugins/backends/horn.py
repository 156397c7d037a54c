"""A transition system's safety question as constrained Horn clauses, solved by z3's Spacer
(:meth:`kinduct.kernel.backend.Solver.solve_horn`).

One relation ``Inv`` over the state variables, three rules (``A`` the assumptions, ``i`` the
inputs, ``x'`` the next state)::

    Init(x) -> Inv(x)
    Inv(x) and A(x, i) and T(x, i, x') -> Inv(x')
    Inv(x) and A(x, i) and not P(x, i) -> false

Satisfiable: Spacer's interpretation of ``Inv`` is an inductive invariant proving ``P`` (read
back into PySMT; the engine re-checks it like any certificate).  Unsatisfiable: ``not P`` is
reachable (the engine finds the trace itself).  Systems with rigid symbols (uninterpreted
functions, free constants) are left alone: a Horn clause would quantify them per step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.kernel.backend import HornAnswer

if TYPE_CHECKING:
    from kinduct.kernel.system import TransitionSystem


def z3_horn(system: TransitionSystem, goal: FNode, seconds: float | None) -> HornAnswer | None:
    """Spacer's answer for ``goal`` (an obligation over current-step variables) on ``system``."""
    import z3
    from pysmt.solvers.z3 import Z3Converter

    if system.rigid_symbols():
        return None
    env = system.env
    mgr = env.formula_manager
    ctx = z3.Context()
    conv = Z3Converter(env, ctx)
    states = list(system.state_vars)
    xs = [conv.convert(v) for v in states]
    xn = [conv.convert(v) for v in system.next_vars]
    ins = [conv.convert(v) for v in system.input_vars]
    inv = z3.Function("Inv", *[x.sort() for x in xs], z3.BoolSort(ctx))
    assumed = conv.convert(mgr.And(system.assumptions))
    solver = z3.SolverFor("HORN", ctx=ctx)
    solver.set("engine", "spacer")
    if seconds is not None:
        solver.set("timeout", max(1, int(seconds * 1000)))

    def rule(body: z3.BoolRef, head: z3.BoolRef, bound: list) -> z3.BoolRef:
        implication = z3.Implies(body, head)
        return z3.ForAll(bound, implication) if bound else implication

    solver.add(rule(conv.convert(system.init), inv(*xs), xs))
    solver.add(rule(z3.And(inv(*xs), assumed, conv.convert(system.trans)), inv(*xn),
                    [*xs, *ins, *xn]))
    solver.add(rule(z3.And(inv(*xs), assumed, conv.convert(mgr.Not(goal))),
                    z3.BoolVal(False, ctx), [*xs, *ins]))
    try:
        result = solver.check()
    except z3.Z3Exception as exc:
        return HornAnswer(None, None, f"z3 (spacer): {exc}")
    if result == z3.unsat:
        return HornAnswer(False, None, "spacer: a bad state is reachable")
    if result != z3.sat:
        return HornAnswer(None, None, f"z3 (spacer): {solver.reason_unknown()}")
    graph = solver.model()[inv]
    if graph is None:  # Inv is unconstrained: nothing is reachable
        interpretation = z3.BoolVal(False, ctx)
    else:  # the graph is over the arguments' de Bruijn variables
        interpretation = z3.substitute_vars(graph.else_value(), *xs)
        for entry in reversed(graph.as_list()[:-1]):
            *args, value = entry
            interpretation = z3.If(z3.And([x == a for x, a in zip(xs, args, strict=True)]),
                                   value, interpretation)
    try:
        invariant = conv.back(interpretation)
    except Exception as exc:  # noqa: BLE001 - a term PySMT cannot read back
        return HornAnswer(None, None, f"spacer's invariant cannot be read back: {exc}")
    if not env.fvo.get_free_variables(invariant) <= set(states):
        return HornAnswer(None, None, "spacer's invariant mentions other symbols")
    return HornAnswer(True, invariant, "spacer: an inductive invariant")
