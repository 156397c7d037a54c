"""A transition system's safety question as constrained Horn clauses, solved by z3's Spacer
(:meth:`kinduct.kernel.backend.Backend.solve_horn`).

One relation ``Inv`` over the state variables, three rules (``A`` the assumptions, ``i`` the
inputs, ``x'`` the next state)::

    Init(x) -> Inv(x)
    Inv(x) and A(x, i) and T(x, i, x') -> Inv(x')
    Inv(x) and A(x, i) and not P(x, i) -> false

When the Boolean state variables encode a program's control locations (software models), the
state space is split by them first (:func:`kinduct.plugins.backends.control.control_graph`):
one relation ``Inv_l`` over the other state variables per reachable location ``l``, one rule
per edge of the location graph, with the Boolean variables replaced by the locations' values.
This is the form Horn solvers are built for (a program's control-flow graph); on CTIGAR it
decides in a fraction of a second systems that the one-relation form leaves open at 60 s.  The
invariant read back is ``or_l (b = l and Inv_l(x))``.

Satisfiable: Spacer's interpretation is an inductive invariant proving ``P`` (read back into
PySMT; the engine re-checks it like any certificate).  Unsatisfiable: ``not P`` is reachable
(the engine finds the trace itself).  Systems with rigid symbols (uninterpreted functions, free
constants) are left alone: a Horn clause would quantify them per step.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import HornAnswer

if TYPE_CHECKING:
    import z3

    from kinduct.kernel.system import TransitionSystem
    from kinduct.plugins.backends.control import ControlGraph

#: The location graph is given up past this many edges or this share of the time limit, and
#: not tried with more Boolean state variables than this (a program's locations take a few
#: bits: CTIGAR's 5-7; synchronous models have tens of Boolean registers, not locations).
MAX_EDGES = 3000
GRAPH_SHARE = 0.1
MAX_CONTROL_BITS = 12


@attrs.frozen
class _Problem:
    """The question in z3's terms: state (``now``), next-state (``after``) and input constants;
    the initial states, one step (transition and assumptions) and the bad states; the
    positions of the Boolean state variables that make up control locations."""

    ctx: z3.Context
    now: list
    after: list
    inputs: list
    init: z3.BoolRef
    step: z3.BoolRef
    bad: z3.BoolRef
    control: list[int]


def z3_horn(system: TransitionSystem, goal: FNode, seconds: float | None) -> HornAnswer | None:
    """Spacer's answer for ``goal`` (an obligation over current-step variables) on ``system``."""
    import z3
    from pysmt.solvers.z3 import Z3Converter

    from kinduct.plugins.backends.control import control_graph
    from kinduct.plugins.backends.qelim import eliminate, quantified

    if system.rigid_symbols():
        return None
    started = time.monotonic()
    env = system.env
    mgr = env.formula_manager
    ctx = z3.Context()
    conv = Z3Converter(env, ctx)
    states = list(system.state_vars)
    now = [conv.convert(v) for v in states]
    assumed = conv.convert(mgr.And(system.assumptions))
    problem = _Problem(ctx, now, [conv.convert(v) for v in system.next_vars],
                       [conv.convert(v) for v in system.input_vars], conv.convert(system.init),
                       z3.And(assumed, conv.convert(system.trans)),
                       z3.And(assumed, conv.convert(mgr.Not(goal))),
                       [i for i, v in enumerate(states) if v.symbol_type().is_bool_type()])
    graph = None if len(problem.control) > MAX_CONTROL_BITS else \
        control_graph(problem.init, problem.step, [now[i] for i in problem.control],
                      [problem.after[i] for i in problem.control], MAX_EDGES,
                      3.0 if seconds is None else max(0.2, seconds * GRAPH_SHARE))

    def left() -> float | None:
        return None if seconds is None else started + seconds - time.monotonic()

    how = "spacer" if graph is None else f"spacer over {len(graph.locations)} control locations"
    # Spacer inlines a location it can (much faster); the inlined location's invariant is
    # then an existential, which cvc5 eliminates.  When that fails (cvc5 missing, out of time,
    # or an answer with integer division, which PySMT cannot read), Spacer runs again with
    # nothing inlined.
    for inline in (True, False) if graph is not None else (True,):
        remaining = left()
        if remaining is not None and remaining <= 0.5:
            break
        answer = _solve(problem, graph, inline, remaining)
        if not isinstance(answer, z3.ExprRef):
            return HornAnswer(answer.holds, None, f"{how}: {answer.reason}")
        interpretation = answer
        if quantified(interpretation):
            remaining = left()
            interpretation = eliminate(interpretation, remaining)
            if interpretation is None:
                continue
        if inline and not _inductive(problem, interpretation, left()):
            continue  # z3's model of inlined relations can break a rule: measured on CTIGAR
        try:
            invariant = conv.back(interpretation)
        except Exception:  # noqa: BLE001 - a term PySMT cannot read back (integer division)
            continue
        if not env.fvo.get_free_variables(invariant) <= set(states):
            return HornAnswer(None, None, "spacer's invariant mentions other symbols")
        return HornAnswer(True, invariant, f"{how}: an inductive invariant")
    return HornAnswer(None, None, f"{how}: an invariant was found but could not be read back "
                      "in time")


def _solve(problem: _Problem, graph: ControlGraph | None, inline: bool,
           seconds: float | None) -> z3.ExprRef | HornAnswer:
    """Spacer on ``problem`` (split by ``graph``'s locations unless None): the invariant's
    formula over the state constants, or the answer when there is none."""
    import z3

    ctx = problem.ctx
    solver = z3.SolverFor("HORN", ctx=ctx)
    solver.set("engine", "spacer")
    if seconds is not None:
        solver.set("timeout", max(1, int(seconds * 1000)))
    if not inline:
        solver.set("xform.inline_linear", False)
        solver.set("xform.inline_eager", False)

    def rule(body: z3.BoolRef, head: z3.BoolRef, bound: list) -> z3.BoolRef:
        implication = z3.Implies(body, head)
        return z3.ForAll(bound, implication) if bound else implication

    xs, xn, ins = problem.now, problem.after, problem.inputs
    if graph is None:
        inv = z3.Function("Inv", *[x.sort() for x in xs], z3.BoolSort(ctx))
        solver.add(rule(problem.init, inv(*xs), xs))
        solver.add(rule(z3.And(inv(*xs), problem.step), inv(*xn), [*xs, *ins, *xn]))
        solver.add(rule(z3.And(inv(*xs), problem.bad), z3.BoolVal(False, ctx), [*xs, *ins]))
        relations = {(): inv}
        data = list(range(len(xs)))
        bits: list = []
    else:
        control = set(problem.control)
        data = [i for i in range(len(xs)) if i not in control]
        dx = [xs[i] for i in data]
        dn = [xn[i] for i in data]
        bits = [xs[i] for i in problem.control]
        following = [xn[i] for i in problem.control]

        def at(formula: z3.BoolRef, names: list, values: tuple[bool, ...]) -> z3.BoolRef:
            pairs = [(b, z3.BoolVal(v, ctx)) for b, v in zip(names, values, strict=True)]
            return z3.simplify(z3.substitute(formula, *pairs))

        relations = {loc: z3.Function("Inv_" + "".join("1" if b else "0" for b in loc),
                                      *[x.sort() for x in dx], z3.BoolSort(ctx))
                     for loc in graph.locations}
        for loc in graph.initial:
            solver.add(rule(at(problem.init, bits, loc), relations[loc](*dx), dx))
        for source, target in set(graph.edges):
            body = at(at(problem.step, bits, source), following, target)
            solver.add(rule(z3.And(relations[source](*dx), body), relations[target](*dn),
                            [*dx, *ins, *dn]))
        for loc in graph.locations:
            body = at(problem.bad, bits, loc)
            if not z3.is_false(body):
                solver.add(rule(z3.And(relations[loc](*dx), body), z3.BoolVal(False, ctx),
                                [*dx, *ins]))
    try:
        result = solver.check()
    except z3.Z3Exception as exc:
        return HornAnswer(None, None, f"z3: {exc}")
    if result == z3.unsat:
        return HornAnswer(False, None, "a bad state is reachable")
    if result != z3.sat:
        return HornAnswer(None, None, f"z3: {solver.reason_unknown()}")
    model = solver.model()
    arguments = [xs[i] for i in data]
    parts = [z3.And(*[b == z3.BoolVal(v, ctx) for b, v in zip(bits, loc, strict=True)],
                    _interpretation(model, relation, arguments))
             for loc, relation in relations.items()]
    return parts[0] if graph is None else z3.Or(parts)


def _inductive(problem: _Problem, invariant: z3.BoolRef, seconds: float | None) -> bool:
    """Whether ``invariant`` holds initially, is kept by a step and excludes the bad states
    (z3 decides, within ``seconds``; the engine certifies the read-back invariant anyway)."""
    import z3

    following = z3.substitute(invariant, *zip(problem.now, problem.after, strict=True))
    solver = z3.Solver(ctx=problem.ctx)
    if seconds is not None:
        solver.set("timeout", max(1, int(seconds * 1000)))
    return all(solver.check(query) == z3.unsat for query in (
        z3.And(problem.init, z3.Not(invariant)),
        z3.And(invariant, problem.step, z3.Not(following)),
        z3.And(invariant, problem.bad)))


def _interpretation(model: z3.ModelRef, relation: z3.FuncDeclRef,
                    arguments: list) -> z3.BoolRef:
    """``relation``'s interpretation in ``model`` as a formula over ``arguments``."""
    import z3

    graph = model[relation]
    ctx = relation.ctx
    if graph is None:  # unconstrained: nothing reaches it
        return z3.BoolVal(False, ctx)
    if not isinstance(graph, z3.FuncInterp):  # a relation without arguments: a truth value
        return graph
    # the graph is over the arguments' de Bruijn variables
    formula = z3.substitute_vars(graph.else_value(), *arguments)
    for entry in reversed(graph.as_list()[:-1]):
        *values, value = entry
        formula = z3.If(z3.And([x == a for x, a in zip(arguments, values, strict=True)]),
                        value, formula)
    return formula
