"""The ``ic3ia`` engine: IC3 with implicit predicate abstraction (Cimatti, Griggio, Mover,
Tonetta, TACAS 2014), refined by interpolation.

IC3 runs over the *abstract* state space of a set of predicates: a state is described by the
truth values of the Boolean state variables and of the predicates (:meth:`IC3IA.state_cube`),
never by the values of its numbers.  The abstraction is implicit: every query still uses the
concrete ``trans`` on the concrete variables, with predicates evaluated on both sides of the
step, so a lemma learnt here holds of the concrete system and the frames stay sound whatever
the predicates are.  Only obligation chains can be spurious: a chain of abstract cubes from
``Init`` to a bad state that no concrete path follows.  Then the concrete path through the
chain's cubes (unsatisfiable) is cut at each step, the backend's interpolant of its prefix and
suffix (:meth:`~kinduct.kernel.backend.Solver.interpolant`) describes what the prefix implies
about the state at the cut, and its atoms become new predicates; IC3 goes on with its frames.
A chain whose interpolants teach nothing new switches to the concrete cubes of ``ic3``.

Initial predicates are the state atoms of the property, ``init``, ``trans`` and the assumptions
(:func:`~kinduct.plugins.engines.vocab.state_atoms`).  cvc5's interpolants (a syntax-guided
search) find the relations IC3's generalisation cannot invent, such as
``count2 = count1 - pre_d``, the invariant of the MAJORITY acceptors; z3 has no interpolation,
only quantifier elimination, whose strongest interpolants enumerate the reachable values, so
the interpolating backend is cvc5 when it is installed, whichever solver runs the queries.

Valid verdicts carry the inductive invariant, re-checked on a fresh solver before they are
reported (:func:`kinduct.kernel.certify.check_invariant`) and published to the engines beside
(``ctx.publish_invariants``, as ``invgen`` does); counterexamples are concrete traces, replayed
by the runner.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import Solver, constant
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Trace, Verdict
from kinduct.plugins.engines.analysis import AnalysingEngine, analyze
from kinduct.plugins.engines.common import extract_trace, unknown_on_solver_failure
from kinduct.plugins.engines.pdr import IC3Base, Obligation, OutOfTime, unhandled
from kinduct.plugins.engines.vocab import state_atoms, theory_atoms

#: Predicates taken from the system itself before any refinement.
INITIAL_PREDICATES = 100


class IC3IA(IC3Base):
    """IC3 over predicate cubes; :meth:`spurious` refines the predicates by interpolation."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext,
                 interpolator: Solver | None, itp_seconds: float) -> None:
        super().__init__(system, ctx)
        self.project = False  # predicate cubes are already small: no cone projection
        self.generalize_predecessors = False
        self.abstract = True
        self.interpolator = interpolator
        self.itp_seconds = itp_seconds
        registers = analyze(system, ctx.make_solver).registers
        #: Cubes mention the registers that the step or a property reads (never the wires
        #: the assumptions define within a step, see ``Cone``), through their predicates.
        self.support = set(system.state_vars if registers is None else registers)
        self.bools = [v for v in system.state_vars
                      if v in self.support and v.symbol_type().is_bool_type()]
        self.predicates: list[FNode] = []
        self._known: set[FNode] = set()
        self.add_predicates(state_atoms(system, INITIAL_PREDICATES))
        self.stats.update(refinements=0, interpolants=0)

    def add_predicates(self, atoms: Sequence[FNode]) -> int:
        """Add the atoms not known yet; how many were new."""
        new = 0
        for atom in atoms:
            atom = self.env.simplifier.simplify(atom)
            if atom.is_bool_constant() or atom in self._known or atom.is_symbol() \
                    or not self.env.fvo.get_free_variables(atom) <= self.support:
                continue
            self._known.add(atom)
            self.predicates.append(atom)
            new += 1
        return new

    def state_cube(self, projected: bool = False, vocab=None  # noqa: ANN001 - as the base's
                   ) -> tuple[tuple[FNode, ...], dict[FNode, FNode]]:
        """The predicate valuation of the current model, and its input constants."""
        if not self.abstract:
            return super().state_cube(projected, vocab)
        mgr = self.mgr
        inputs = list(self.system.input_vars)
        vals = self.solver.values([*self.bools, *self.predicates, *inputs])
        cube = [t if vals[t] else mgr.Not(t) for t in (*self.predicates, *self.bools)]
        consts = {v: constant(mgr, v, vals[v]) for v in inputs}
        return tuple(cube), consts

    def confirm(self, chain: list[Obligation], goal: FNode) -> Trace | None:
        """A concrete execution through the chain's cubes; else, with abstract cubes, any
        execution of the chain's length to ``not goal`` (a real counterexample all the same)."""
        trace = super().confirm(chain, goal)
        if trace is None and self.abstract:
            trace = self._path(len(chain) - 1, goal)
        return trace

    def _path(self, n: int, goal: FNode) -> Trace | None:
        ub = Unroller(self.system)
        s = self.ctx.make_solver()
        try:
            for step in self._steps(ub, [self.mgr.TRUE()] * (n + 1), goal):
                s.add_all(step)
            return extract_trace(s, ub, n) if s.check() else None
        finally:
            s.close()

    def _steps(self, ub: Unroller, cubes: Sequence[FNode], goal: FNode) -> list[list[FNode]]:
        """The conjuncts of ``Init, c_0, T, c_1, ..., c_n, not goal`` unrolled, step by step."""
        system = self.system
        n = len(cubes) - 1
        steps: list[list[FNode]] = []
        for j, cube in enumerate(cubes):
            step = [ub.at(a, j) for a in system.assumptions]
            if not cube.is_true():
                step.append(ub.at(cube, j))
            if j < n:
                step.append(ub.at(system.trans, j))
            steps.append(step)
        steps[0].insert(0, ub.at(system.init, 0))
        steps[n].append(ub.at(self.mgr.Not(goal), n))
        return steps

    def spurious(self, chain: list[Obligation], goal: FNode) -> None:
        """Refine the predicates with the interpolants of the chain's path through its cubes,
        else of the plain unrolling of its length (both unsatisfiable, see :meth:`confirm`).

        When the chain's interpolants teach nothing new and some ran out of time, the plain
        unrolling (whose interpolants are harder: no cubes to cut it) is not tried: on a busy
        machine (dyck1's product with two CPU-bound processes beside: load 7-10) its three
        interpolants each used their whole limit, 12 s, before ``ic3``'s concrete cubes took
        over and proved it in 1-4 s."""
        if self.abstract and self.interpolator is not None:
            self.stats["refinements"] += 1
            mgr = self.mgr
            cubes = [mgr.And(ob.cube) for ob in chain]
            for path in (cubes, [mgr.TRUE()] * len(cubes)):
                atoms, timed_out = self._interpolant_atoms(path, goal)
                if self.add_predicates(atoms):
                    return
                if timed_out:
                    break  # the plain path's interpolants are harder still: stop refining
        if self.abstract:
            self.abstract = False  # nothing new learnt: fall back to ic3's concrete cubes
            return
        super().spurious(chain, goal)

    def _interpolant_atoms(self, cubes: Sequence[FNode],
                           goal: FNode) -> tuple[list[FNode], bool]:
        """Atoms of a sequence of interpolants along the unsatisfiable path ``Init, c_0, T,
        c_1, ..., c_n, not goal``, renamed to current-state variables, and whether some
        interpolant ran out of its time (:attr:`itp_seconds`).

        ``I_j`` (over the state of step ``j >= 1``) is implied by ``I_{j-1}`` and step ``j - 1``
        (by the whole prefix for ``j = 1`` or when the backend finds none) and contradicts the
        suffix: each step of the abstract path is then excluded by predicates of its two ends
        (IC3IA's refinement).  No cut is made before step 0: its interpolant is ``Init``
        itself, whose atoms are predicates from the start."""
        system = self.system
        ub = Unroller(system)
        steps = self._steps(ub, cubes, goal)
        atoms: list[FNode] = []
        timed_out = False
        previous: FNode | None = None
        for j in range(1, len(steps)):
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise OutOfTime
            suffix = [f for s in steps[j:] for f in s]
            whole = [f for s in steps[:j] for f in s]
            prefixes = [[previous, *steps[j - 1]], whole] if previous is not None else [whole]
            itp = None
            for prefix in prefixes:
                asked = time.monotonic()
                itp = self.interpolator.interpolant(prefix, suffix, self.itp_seconds)
                if itp is not None:
                    break
                timed_out |= time.monotonic() - asked >= 0.9 * self.itp_seconds
            previous = itp
            if itp is None:
                continue
            self.stats["interpolants"] += 1
            back = {ub.timed(v, j): v for v in system.state_vars}
            allowed = set(back) | set(system.rigid_symbols())
            for atom in _atoms(self.env, itp):
                if self.env.fvo.get_free_variables(atom) <= allowed:
                    atoms.append(self.env.substituter.substitute(atom, back))
        return atoms, timed_out


def _atoms(env, formula: FNode) -> list[FNode]:
    """The theory atoms of ``formula`` (Boolean variables are in every cube already)."""
    return sorted(theory_atoms(env, formula), key=lambda a: a.node_id())


class IC3IAEngine(AnalysingEngine):
    name = "ic3ia"
    description = ("IC3 with implicit predicate abstraction, refined by interpolation "
                   "(certified invariants)")
    # The Lucent acceptors of C-RASP programs (majority, dyck1) take it 1-3 s alone, 5-25 s
    # as one process among six on a loaded machine: on small systems it runs in the quick
    # phase, and beside other engines it leaves big systems to them (``beside_max_nodes``).
    quick_bound = 64
    quick_slice = 2.0

    @attrs.frozen
    class Options:
        """``interpolator``: the backend whose interpolants refine the predicates (None: cvc5
        when installed, else the run's solver); ``itp_seconds``: the limit of one
        interpolant; ``beside_max_nodes``: beside other engines (a portfolio's process), the
        largest system (formula nodes of init, trans and the assumptions) it works on, 0 for
        any (alone, or in the quick phase, it always works)."""

        interpolator: str | None = None
        itp_seconds: float = 4.0
        beside_max_nodes: int = 200

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        if refusals := unhandled(system, properties, "ic3ia"):
            yield from refusals
            return
        options: IC3IAEngine.Options = ctx.options
        if ctx.companions and options.beside_max_nodes and \
                formula_nodes(system, options.beside_max_nodes) > options.beside_max_nodes:
            for prop in properties:
                yield Verdict(prop.name, Answer.UNKNOWN, message="ic3ia: left to the engines "
                              f"beside it on a system of over {options.beside_max_nodes} nodes")
            return
        interpolator = _interpolator(system, ctx, options.interpolator)
        core = IC3IA(system, ctx, interpolator, options.itp_seconds)
        for prop in properties:
            try:
                verdict = core.decide(prop)
            except OutOfTime:
                verdict = Verdict(prop.name, Answer.UNKNOWN, message="ic3ia: out of time")
            if verdict.answer is Answer.VALID:
                ctx.publish_invariants([verdict.invariant])
            yield verdict
        if interpolator is not None:
            interpolator.close()


def formula_nodes(system: TransitionSystem, limit: int) -> int:
    """The distinct formula nodes of ``init``, ``trans`` and the assumptions, counted until
    ``limit`` is passed."""
    seen: set[FNode] = set()
    stack = [system.init, system.trans, *system.assumptions]
    while stack and len(seen) <= limit:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.args())
    return len(seen)


def _interpolator(system: TransitionSystem, ctx: EngineContext, name: str | None) -> Solver | None:
    """The solver whose :meth:`~kinduct.kernel.backend.Solver.interpolant` refines."""
    if name is None:
        cvc5 = registry.backends().get("cvc5")
        if cvc5 is None or not cvc5.available():
            return ctx.make_solver()
        name = cvc5.name
    if name == ctx.solver_name:
        return ctx.make_solver()
    return registry.backend(name).solver(system.env)
