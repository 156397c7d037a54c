"""The ``ic3mbp`` engine: IC3 whose bad states and predecessors are regions found by
model-based projection (the generalisation of Spacer and of Kind 2's IC3QE).

``ic3`` describes a predecessor by the values of its model (then shrinks the cube by an unsat
core); here the model of ``F_i and T and c'`` is projected onto the registers
(:meth:`~kinduct.kernel.backend.Solver.project`): the result is a conjunction of linear
literals, every state of which has a successor in ``c`` (``x - y <= 3`` rather than ``x = 7,
y = 4``), so one obligation covers what ``ic3`` would meet value by value.  Bad states are
found the same way from ``not P``.  Cubes mention the registers that the step or a property
reads (the analysis' cone): the wires the assumptions define within a step are projected away.

The projection is z3's; with a backend that has none, cubes are ``ic3``'s (values).  A chain
that does not replay (the projection ignores the next step's assumptions) switches the
projection off.  Valid verdicts carry the invariant, re-checked on a fresh solver and published
to the engines beside; counterexamples are concrete traces, replayed by the runner.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import Property, TransitionSystem, conjuncts
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.analysis import AnalysingEngine, analyze
from kinduct.plugins.engines.common import unknown_on_solver_failure
from kinduct.plugins.engines.discovery import discover
from kinduct.plugins.engines.pdr import IC3Base, Obligation, OutOfTime, unhandled
from kinduct.plugins.engines.vocab import theory_atoms


class ProjectingIC3(IC3Base):
    """IC3 with projected bad-state and predecessor cubes."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext) -> None:
        super().__init__(system, ctx)
        registers = analyze(system, ctx.make_solver).registers
        self.keep = list(system.state_vars if registers is None else registers)
        self.projecting = True
        self.stats.update(projected=0, unprojected=0)

    def _projected(self, formula: FNode) -> tuple[FNode, ...] | None:
        """A cube over the registers, true in the last model, implying ``exists. formula``."""
        if not self.projecting:
            return None
        got = self.solver.project(formula, self.keep)
        if got is None:
            self.stats["unprojected"] += 1
            return None
        self.stats["projected"] += 1
        mgr = self.mgr
        lits: list[FNode] = []
        rest: list[FNode] = []
        for c in conjuncts(self.env.simplifier.simplify(got)):
            atom = c.arg(0) if c.is_not() else c
            if atom.is_symbol() or atom.is_le() or atom.is_lt() or atom.is_equals():
                lits.append(c)
            else:
                rest.append(c)
        if rest:  # a Boolean combination left: the model's values of its atoms imply it
            atoms = sorted({a for r in rest for a in (*theory_atoms(self.env, r),
                                                      *self.env.fvo.get_free_variables(r))
                            if a.get_type().is_bool_type()}, key=lambda a: a.node_id())
            values = self.solver.values(atoms)
            lits.extend(a if values[a] else mgr.Not(a) for a in atoms)
        return tuple(dict.fromkeys(lits))

    def get_bad(self, goal: FNode, level: int) -> Obligation | None:
        self._maybe_reset()
        bad = self.mgr.Not(goal)
        if not self.solver.check([*self.frame(level), bad]):
            return None
        cube = self._projected(self.mgr.And(self.assumptions, bad))
        if cube is None:
            cube, inputs = self.state_cube(vocab=self.bad_vocab(goal))
            cube = self.generalize_predecessor(cube, inputs, bad, False)
        return Obligation(cube, level)

    def predecessor(self, ob: Obligation) -> Obligation:
        target = self.mgr.And([self.prime(lit) for lit in ob.cube])
        cube = self._projected(self.mgr.And(self.assumptions, self.system.trans, target))
        if cube is None:
            return super().predecessor(ob)
        return Obligation(cube, ob.level - 1, ob, ob.depth + 1)

    def spurious(self, chain: list[Obligation], goal: FNode) -> None:
        if self.projecting:
            self.projecting = False
            return
        super().spurious(chain, goal)


class IC3MBP(AnalysingEngine):
    name = "ic3mbp"
    description = "IC3 with predecessors generalised by model-based projection (certified invariants)"

    @attrs.frozen
    class Options:
        """``invgen``: seed the frames with discovered invariants, as ``ic3`` does;
        ``invgen_budget``: seconds of simulation for it."""

        invgen: bool = False
        invgen_budget: float = 8.0

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        if refusals := unhandled(system, properties, "ic3mbp"):
            yield from refusals
            return
        options: IC3MBP.Options = ctx.options
        core = ProjectingIC3(system, ctx)
        if options.invgen:
            _, proved = discover(system, ctx, options.invgen_budget, seed=0, known=core.forever)
            for lemma in proved:
                if lemma not in core.forever:
                    core.add_forever(lemma)
        for prop in properties:
            try:
                verdict = core.decide(prop)
            except OutOfTime:
                verdict = Verdict(prop.name, Answer.UNKNOWN, message="ic3mbp: out of time")
            if verdict.answer is Answer.VALID and verdict.invariant is not None:
                ctx.publish_invariants([verdict.invariant])
            yield verdict
