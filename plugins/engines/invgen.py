"""The ``invgen`` engine: rounds of invariant discovery (:mod:`.discovery`) with fresh
simulation seeds; the survivors are published to the other engines (``kind`` and ``ic3``
assert them), and any property they imply is reported valid with the conjunction as its
certificate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.certify import check_invariant
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.analysis import AnalysingEngine
from kinduct.plugins.engines.common import unknown_on_solver_failure
from kinduct.plugins.engines.discovery import discover


class InvGen(AnalysingEngine):
    name = "invgen"
    publishes_invariants = True
    description = "invariant generation (templates + affine hull of simulations, Houdini)"

    @attrs.frozen
    class Options:
        """``budget``: seconds of simulation per round (at most); ``rounds``: discovery rounds
        with fresh simulation seeds; ``runs``/``depth``: simulated runs per round and their
        length."""

        budget: float = 20.0
        rounds: int = 4
        runs: int = 8
        depth: int = 20

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        options: InvGen.Options = ctx.options
        budget = options.budget
        left = ctx.time_left()
        if left is not None:
            budget = min(budget, max(1.0, left - 0.5))
        mgr = system.env.formula_manager

        def early(facts: list[FNode], proved: list[FNode]) -> None:
            ctx.publish_invariants([to_smtlib(f) for f in [*facts, *proved]])

        # Rounds with fresh simulation seeds until every property is proved or time is up.
        lemmas: list[FNode] = []
        #: Property -> why the solver could not decide whether the invariants imply it.
        undecided: dict[str, str] = {}
        open_props = list(properties)
        for seed in range(options.rounds):
            facts, proved = discover(system, ctx, budget, seed=seed, on_proved=early, known=lemmas,
                                     runs=options.runs, depth=options.depth)
            fresh = [f for f in [*facts, *proved] if f not in set(lemmas)]
            if seed and not fresh:
                continue
            lemmas.extend(fresh)
            if lemmas:
                ctx.publish_invariants([to_smtlib(f) for f in lemmas])
            settled = [p for p in open_props if self._settled(system, p, lemmas, ctx, undecided)]
            for prop in settled:
                yield Verdict(prop.name, Answer.VALID, k=1, invariant=to_smtlib(mgr.And(lemmas)))
            open_props = [p for p in open_props if p not in settled]
            if not open_props:
                break
        for prop in open_props:
            if prop.name in undecided:
                yield Verdict(prop.name, Answer.UNKNOWN, engine=self.name,
                              message=f"the solver could not decide a query: {undecided[prop.name]}")

    def _settled(self, system: TransitionSystem, prop: Property, lemmas: list[FNode],
                 ctx: EngineContext, undecided: dict[str, str]) -> bool:
        """Do the invariants prove ``prop`` (checked again as a certificate)?  When the
        solver cannot tell, the reason goes into ``undecided`` and the answer is no."""
        mgr = system.env.formula_manager
        inv = mgr.And(lemmas)
        solver = ctx.make_solver()
        solver.add(inv)
        solver.add_all(system.assumptions)
        try:
            implied = not solver.check([mgr.Not(prop.obligation(system.env))])
        except SolverUnknown as exc:
            undecided[prop.name] = str(exc)
            implied = False
        solver.close()
        if not implied:
            return False
        checker = ctx.make_solver()
        problem = check_invariant(system, prop, inv, checker)
        checker.close()
        return problem is None
