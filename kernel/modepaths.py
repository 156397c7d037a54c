"""Mode paths of a system: which combinations of modes can follow one another, step by step.

For test generation from a contract (Kind 2's ``--testgen``).  A *combination* at a step is the
set of modes whose requirement holds there (at least one: Kind 2 asks for one active mode at
every step); a *mode path* is one combination per step, steps ``0..depth``.  The exploration is
depth first on one incremental solver over the bounded unrolling of the system
(:class:`~kinduct.kernel.unroll.Unroller`): at a reachable prefix of ``d`` steps it asks for a
model of the prefix extended by one step, reads the combination the model activates, records
it as reachable, blocks it and asks again, until the solver says no other combination exists
(the remaining ones are *unreachable*, pruned with everything below them) or gives up (they are
*undecided*).  Each reachable combination is descended into before the next is asked for.

Every step of a path satisfies the system's initial condition (step 0), its transition
relation, its invariant assumptions and the problem's ``step_constraints`` (a contract's
assumptions, and for a component without a body its guarantees).

:func:`diverse_traces` then draws several different traces of one path with
:mod:`kinduct.kernel.diverse` (random suggestions as soft constraints, nearest model, block).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown, constant
from kinduct.kernel.diverse import DiverseModels, Problem, Stop, Suggestion
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Value

#: The modes active at one step, in the problem's order of modes.
Combination = tuple[str, ...]
#: One combination per step.
ModePath = tuple[Combination, ...]


@attrs.frozen
class Mode:
    """A mode's name and its requirement, a formula over the current step's variables."""

    name: str
    require: FNode


@attrs.frozen
class ModeProblem:
    """What to explore: ``system``'s runs of ``depth + 1`` steps satisfying ``step_constraints``
    at every step; ``read`` are the variables a trace shows (current-step variables), steered
    to differ between traces; ``oracles`` are read too, as the solver completes them (the
    arbitrary values a run also depends on: an unguarded ``pre`` at the first step, ...)."""

    system: TransitionSystem
    modes: tuple[Mode, ...]
    depth: int
    step_constraints: tuple[FNode, ...] = ()
    read: tuple[FNode, ...] = ()
    oracles: tuple[FNode, ...] = ()
    #: Constraints the traces keep at every step where the path allows it (all of them, or
    #: none): e.g. the oracles at the values a simulator picks by default.
    preferred: tuple[FNode, ...] = ()


@attrs.frozen
class Exploration:
    """The outcome: the reachable full-length ``paths`` (in the order found), the reachable
    prefixes that no combination extends (``deadlocks``), the prefixes whose extensions the
    solver could not decide (``open``), and the counts of (prefix, combination) pairs:
    ``explored`` = ``reachable`` + ``unreachable`` + ``undecided``."""

    paths: tuple[ModePath, ...]
    deadlocks: tuple[ModePath, ...]
    open: tuple[ModePath, ...]
    explored: int
    reachable: int
    unreachable: int
    undecided: int
    timed_out: bool = False


#: The values suggested for an integer input: small ones, where a contract's ranges usually are.
SUGGESTED = range(-20, 21)


class _Unrolled:
    """The problem's formulas at steps 0, 1, ...; one step's constraints asserted per level."""

    def __init__(self, problem: ModeProblem) -> None:
        self.problem = problem
        system = problem.system
        self.mgr = system.env.formula_manager
        self.unroller = Unroller(system)
        self.system = system

    def step(self, k: int) -> list[FNode]:
        """What holds at step ``k`` (with the transition into it)."""
        s, u = self.system, self.unroller
        out = [u.at(s.init, 0)] if k == 0 else [u.at(s.trans, k - 1)]
        out += [u.at(a, k) for a in s.assumptions]
        out += [u.at(c, k) for c in self.problem.step_constraints]
        out.append(self.mgr.Or([u.at(m.require, k) for m in self.problem.modes]))
        return out

    def requires(self, k: int) -> list[FNode]:
        return [self.unroller.at(m.require, k) for m in self.problem.modes]

    def combination(self, k: int, active: Combination) -> FNode:
        mgr = self.mgr
        return mgr.And([r if m.name in active else mgr.Not(r)
                        for m, r in zip(self.problem.modes, self.requires(k), strict=True)])


def explore(problem: ModeProblem, solver: Solver, deadline: float | None = None,
            on_path: Callable[[ModePath], None] | None = None) -> Exploration:
    """Every mode path of ``problem`` (see the module's docstring).  ``deadline``: a
    ``time.monotonic()`` instant after which the unexplored prefixes are left open;
    ``on_path``: called with each full-length path as soon as it is found."""
    if not problem.modes or problem.depth < 0:
        raise ValueError("no modes to explore, or a negative depth")
    unrolled = _Unrolled(problem)
    per_step = 2 ** len(problem.modes) - 1  # the non-empty combinations
    paths: list[ModePath] = []
    deadlocks: list[ModePath] = []
    open_: list[ModePath] = []
    counts = {"reachable": 0, "unreachable": 0, "undecided": 0}
    timed_out = False

    def descend(prefix: ModePath) -> None:
        nonlocal timed_out
        k = len(prefix)
        solver.push()
        solver.add_all(unrolled.step(k))
        found: list[Combination] = []
        blocks: list[FNode] = []
        requires = unrolled.requires(k)
        while True:
            if deadline is not None and time.monotonic() > deadline:
                timed_out = True
                counts["undecided"] += per_step - len(found)
                open_.append(prefix)
                break
            try:
                sat = solver.check()
            except SolverUnknown:
                counts["undecided"] += per_step - len(found)
                open_.append(prefix)
                break
            if not sat:
                counts["unreachable"] += per_step - len(found)
                if not found:
                    deadlocks.append(prefix)
                break
            values = solver.values(requires)
            active = tuple(m.name for m, r in zip(problem.modes, requires, strict=True) if values[r])
            found.append(active)
            counts["reachable"] += 1
            block = unrolled.mgr.Not(unrolled.combination(k, active))
            blocks.append(block)
            path = (*prefix, active)
            if k == problem.depth:
                paths.append(path)
                if on_path is not None:
                    on_path(path)
            else:
                solver.push()
                solver.add(unrolled.combination(k, active))
                descend(path)
                solver.pop()
            solver.add(block)
        solver.pop()

    descend(())
    explored = sum(counts.values())
    return Exploration(tuple(paths), tuple(deadlocks), tuple(open_), explored, counts["reachable"],
                       counts["unreachable"], counts["undecided"], timed_out)


@attrs.frozen
class Traces:
    """The traces of one path: per trace, per step, the value of each of ``problem.read`` and
    ``problem.oracles`` (by variable name); ``stop`` says why fewer than asked were found."""

    steps: tuple[tuple[dict[str, Value], ...], ...]
    stop: Stop


def path_formulas(problem: ModeProblem, path: ModePath) -> list[FNode]:
    """The constraints of the runs that follow ``path``."""
    unrolled = _Unrolled(problem)
    out: list[FNode] = []
    for k, active in enumerate(path):
        out += unrolled.step(k)
        out.append(unrolled.combination(k, active))
    return out


def diverse_traces(problem: ModeProblem, path: ModePath, count: int, rng: random.Random,
                   models: DiverseModels, solver: Solver, timeout_ms: int = 5000,
                   deadline: float | None = None) -> Traces:
    """Up to ``count`` runs of ``path``, pairwise different on the integer and Boolean
    variables of ``problem.read``; the suggestions steer those: a random value for each
    (:data:`SUGGESTED`, or a Boolean), and for each earlier run a value different from its
    own; a real through its integer part.  The other variables of ``read`` (reals,
    bit-vectors) are completed by ``solver`` for each run."""
    unroller = Unroller(problem.system)
    mgr = problem.system.env.formula_manager
    steps = range(len(path))

    def steered(v: FNode) -> bool:
        return v.symbol_type().is_int_type() or v.symbol_type().is_bool_type()
    chosen = [v for v in problem.read if steered(v)]
    rest = [v for v in problem.read if not steered(v)] + list(problem.oracles)
    variables = tuple(unroller.timed(v, k) for k in steps for v in chosen)
    formulas = path_formulas(problem, path)
    # a real is steered through its integer part (a fresh integer ``n <= x < n + 1``)
    from pysmt.typing import INT
    for k in steps:
        for v in problem.read:
            if v.symbol_type().is_real_type():
                x = unroller.timed(v, k)
                n = mgr.Symbol(f"%floor.{x.symbol_name()}", INT)
                formulas.append(mgr.And(mgr.LE(mgr.ToReal(n), x),
                                        mgr.LT(x, mgr.Plus(mgr.ToReal(n), mgr.Real(1)))))
                variables += (n,)
    # each trace keeps the preferred constraints if it can, else does without them
    tries = [formulas + [unroller.at(p, k) for k in steps for p in problem.preferred], formulas] \
        if problem.preferred else [formulas]
    found: list[tuple[Value, ...]] = []
    stop = Stop.COUNT
    one, zero = mgr.Int(1), mgr.Int(0)
    while len(found) < count:
        # a random value for each variable, none an earlier trace's; and a goal to differ from
        # every earlier trace in every value (when no suggested value is possible)
        suggestions = []
        for i, x in enumerate(variables):
            taken = {earlier[i] for earlier in found}
            domain = (False, True) if x.symbol_type().is_bool_type() else SUGGESTED
            suggestions.append(Suggestion(x, [v for v in domain if v not in taken] or domain))
        differ = [Suggestion(mgr.Ite(mgr.EqualsOrIff(x, constant(mgr, x, earlier[i])), zero, one), (1,))
                  for earlier in found for i, x in enumerate(variables)]
        for hard in tries:
            got = models.models(Problem(tuple(hard), variables, tuple(suggestions + differ),
                                        tuple(found)), 1, rng, timeout_ms, deadline)
            if got.models:
                break
        if not got.models:
            stop = got.stop
            break
        found.append(got.models[0])
    out = []
    for model in found:
        value: dict[FNode, Value] = dict(zip(variables, model, strict=True))
        if rest:
            timed = [unroller.timed(v, k) for k in steps for v in rest]
            solver.push()
            solver.add_all(formulas)
            solver.add_all(mgr.EqualsOrIff(x, constant(mgr, x, value[x])) for x in variables)
            try:
                if not solver.check():
                    solver.pop()
                    continue
            except SolverUnknown:
                solver.pop()
                continue
            value.update(solver.values(timed))
            solver.pop()
        out.append(tuple({v.symbol_name(): value[unroller.timed(v, k)]
                          for v in problem.read + problem.oracles} for k in steps))
    return Traces(tuple(out), stop)
