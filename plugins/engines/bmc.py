"""Bounded model checking: incremental unrolling, shortest counterexamples first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kinduct.kernel.bounded import BoundedProblem
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.common import extract_trace, unknown_on_solver_failure


class BMC(Engine):
    name = "bmc"
    description = "bounded model checking (finds shortest counterexamples)"
    needs_transition_relation = False
    #: In a portfolio kind's base case already covers shallow bugs: yield the CPU to provers.
    portfolio_nice = 5

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        bounded = system.metadata.get("bounded")
        if isinstance(bounded, BoundedProblem):
            yield from bounded.run_bmc(properties, ctx)
            return
        mgr = system.env.formula_manager
        solver = ctx.make_solver()
        unroller = Unroller(system)
        pending = {p.name: p.obligation(system.env) for p in properties}
        solver.add(unroller.at(system.init, 0))
        k = 0
        while pending:
            if ctx.max_k is not None and k > ctx.max_k:
                for name in pending:
                    yield Verdict(name, Answer.UNKNOWN, engine=self.name, k=ctx.max_k,
                                  message=f"no counterexample up to bound {ctx.max_k}")
                return
            if k > 0:
                solver.add(unroller.at(system.trans, k - 1))
            for assumption in system.assumptions:
                solver.add(unroller.at(assumption, k))
            violations = {name: mgr.Not(unroller.at(f, k)) for name, f in pending.items()}
            if len(violations) > 1 and not solver.check([mgr.Or(violations.values())]):
                k += 1
                continue
            for name, violation in violations.items():
                if solver.check([violation]):
                    trace = extract_trace(solver, unroller, k)
                    del pending[name]
                    yield Verdict(name, Answer.FALSIFIABLE, engine=self.name, k=k, trace=trace)
            k += 1
