"""Bounded model checking: incremental unrolling, shortest counterexamples first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kinduct.kernel.bounded import BoundedProblem
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.common import (
    BaseCase,
    Undecided,
    steps_within_bound,
    unknown_at_bound,
    unknown_on_solver_failure,
)


class BMC(Engine):
    name = "bmc"
    description = "bounded model checking (finds shortest counterexamples)"
    needs_transition_relation = False
    #: In a portfolio kind's base case already covers shallow bugs: yield the CPU to provers.
    niceness = 5
    shortest_counterexamples = True

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        if system.bounded is not None:
            yield from self._lengths(system.bounded, properties, ctx)
            return
        base = BaseCase(system, ctx.make_solver())
        pending = {p.name: p.obligation(system.env) for p in properties}
        for k in steps_within_bound(ctx, pending):
            try:
                yield from base.falsify(pending, k, self.name)
            except Undecided as exc:
                # Asked alone, these stayed undecided at k (quantified state): no bound can
                # be claimed for them; the others go on, the falsified ones already out.
                for name in exc.names:
                    del pending[name]
                    yield Verdict(name, Answer.UNKNOWN, engine=self.name, k=k - 1 if k else None,
                                  message=f"the solver could not decide a query: {exc}")
            ctx.reached(list(pending), k)
        yield from unknown_at_bound(ctx, pending, self.name, "no counterexample")

    def _lengths(self, problem: BoundedProblem, properties: Sequence[Property],
                 ctx: EngineContext) -> Iterator[Verdict]:
        """A bounded-only problem, length by length: the first violating input is the shortest."""
        pending = list(properties)
        for n in range(problem.min_length, problem.max_length + 1):
            if ctx.max_k is not None and n > ctx.max_k:
                break
            for prop in list(pending):
                solver = ctx.make_solver()
                solver.add(problem.violation(n, prop))
                if solver.check():
                    pending.remove(prop)
                    yield Verdict(prop.name, Answer.FALSIFIABLE, engine=self.name, k=n - 1,
                                  trace=problem.decode(n, solver))
                solver.close()
            if not pending:
                return
        last = problem.max_length if ctx.max_k is None else min(problem.max_length, ctx.max_k)
        for prop in pending:
            answer = Answer.VALID if last == problem.max_length else Answer.UNKNOWN
            yield Verdict(prop.name, answer, engine=self.name, k=last,
                          message=f"holds for every input of length {problem.min_length}..{last}")
