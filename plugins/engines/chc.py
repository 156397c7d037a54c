"""The ``chc`` engine: each property as one constrained-Horn-clause problem, handed to a backend
that solves such problems whole (:meth:`~kinduct.kernel.backend.Backend.solve_horn`: z3's
Spacer, an IC3 over Horn clauses with model-based projection and interpolating lemma
generalisation, written in C++).

Nothing the backend says is taken on trust: an invariant is re-checked on a fresh solver of
the run's backend (:func:`kinduct.kernel.certify.check_invariant`) before ``valid`` is reported
(and travels with the verdict, published to the engines beside); a reachable bad state becomes
``falsifiable`` only with a trace this engine finds by unrolling (:class:`common.BaseCase`),
which the runner replays like any other.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import HornAnswer
from kinduct.kernel.certify import check_invariant
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.common import BaseCase, unknown_on_solver_failure


class CHC(Engine):
    name = "chc"
    description = "each property as Horn clauses for the backend's CHC solver (z3's Spacer); certified"
    # Beside the others at bmc's priority: at nice 0 it took CPU from bmc's deep
    # counterexamples (car_6_e2_893: 11-12 s instead of 3-5 s at load 13-15).
    niceness = 5
    # On a small system (a C-RASP query) Spacer answers in a fraction of a second.
    quick_bound = 1
    shortest_counterexamples = True
    quick_slice = 1.0

    @attrs.frozen
    class Options:
        """``backend``: whose Horn solver to use (None: the run's solver if it has one, else
        the first backend that has)."""

        backend: str | None = None

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        options: CHC.Options = ctx.options
        names = [options.backend] if options.backend else \
            [ctx.solver_name, *(n for n in registry.backends() if n != ctx.solver_name)]
        for prop in properties:
            goal = prop.obligation(system.env)
            answer: HornAnswer | None = None
            for name in names:
                backend = registry.backend(name)
                if backend.smt and backend.available():
                    answer = backend.solve_horn(system, goal, ctx.time_left())
                    if answer is not None:
                        break
            if answer is None:
                yield Verdict(prop.name, Answer.UNKNOWN,
                              message="chc: no backend solves Horn clauses for this system")
            elif answer.holds and answer.invariant is not None:
                checker = ctx.make_solver()
                problem = check_invariant(system, prop, answer.invariant, checker)
                checker.close()
                if problem is None:
                    text = to_smtlib(answer.invariant)
                    ctx.publish_invariants([text])
                    yield Verdict(prop.name, Answer.VALID, invariant=text)
                else:
                    yield Verdict(prop.name, Answer.UNKNOWN,
                                  message=f"chc: the backend's invariant is rejected ({problem})")
            elif answer.holds is False and not {"bmc", "kind"} & set(ctx.companions):
                yield from _falsify(system, prop, ctx, goal)
            elif answer.holds is False:  # bmc or kind beside finds the trace
                yield Verdict(prop.name, Answer.UNKNOWN, message=f"{answer.reason}; the trace "
                              "is left to the engines beside")
            else:
                yield Verdict(prop.name, Answer.UNKNOWN, message=answer.reason)


def _falsify(system: TransitionSystem, prop: Property, ctx: EngineContext,
             goal: FNode) -> Iterator[Verdict]:
    """The shortest counterexample, by unrolling until the deadline (the backend says one
    exists)."""
    base = BaseCase(system, ctx.make_solver())
    pending = {prop.name: goal}
    k = 0
    while pending and not ctx.expired() and (ctx.max_k is None or k <= ctx.max_k):
        yield from base.falsify(pending, k, "chc")
        k += 1
    if pending:
        yield Verdict(prop.name, Answer.UNKNOWN, message="chc: a bad state is reachable, "
                      "but no trace was found in time")
