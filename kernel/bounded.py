"""Bounded-only problems: questions asked of all inputs up to a length, with no transition
relation (RASP programs attend to the whole input, so they have no step function).

A :class:`BoundedProblem` offers, for each length n, a formula whose models are the inputs of
length n that violate a property.  The ``bmc`` engine decides it length by length; engines that
need a transition relation refuse it.  A system wraps it as ``metadata["bounded"]``.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence

from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Verdict


class BoundedProblem(abc.ABC):
    """Subclasses say how to encode length n and how to read a model back as a trace."""

    env: Environment
    min_length: int = 1
    max_length: int

    @abc.abstractmethod
    def violation(self, n: int, prop: Property) -> FNode:
        """Satisfiable exactly when some input of length ``n`` violates ``prop``."""

    @abc.abstractmethod
    def decode(self, n: int, solver: Solver) -> Trace:
        """The violating input (and whatever values help the user) from the solver's model."""

    def run_bmc(self, properties: Sequence[Property], ctx: EngineContext) -> Iterator[Verdict]:
        pending = list(properties)
        for n in range(self.min_length, self.max_length + 1):
            if ctx.max_k is not None and n > ctx.max_k:
                break
            for prop in list(pending):
                solver = ctx.make_solver()
                solver.add(self.violation(n, prop))
                if solver.check():
                    pending.remove(prop)
                    yield Verdict(prop.name, Answer.FALSIFIABLE, engine="bmc", k=n - 1,
                                  trace=self.decode(n, solver))
                solver.close()
            if not pending:
                return
        last = self.max_length if ctx.max_k is None else min(self.max_length, ctx.max_k)
        for prop in pending:
            answer = Answer.VALID if last == self.max_length else Answer.UNKNOWN
            yield Verdict(prop.name, answer, engine="bmc", k=last,
                          message=f"holds for every input of length {self.min_length}..{last}")


def bounded_system(problem: BoundedProblem, properties: Sequence[Property],
                   name: str = "main", replay=None, lift=None) -> TransitionSystem:
    """A system shell carrying a bounded problem: no states, no transitions."""
    builder = SystemBuilder(name, env=problem.env)
    for prop in properties:
        builder.add_property(prop)
    builder.metadata["bounded"] = problem
    return builder.build(lift=lift, replay=replay)
