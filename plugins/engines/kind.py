"""k-induction with its own base case, lazy simple-path constraints and shared invariants.

A property is reported valid at depth k only after the base case (no violation in the first k
steps from init) has been checked up to the same k in this engine.  Properties are proved as a
group: those whose induction step fails are dropped from the hypothesis until the rest is
jointly k-inductive (Kind 2's scheme).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from pysmt.fnode import FNode

from kinduct.kernel import registry
from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.evaluate import holds
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Proof, Verdict
from kinduct.plugins.engines.common import (
    BaseCase,
    InvariantIntake,
    QueryLimits,
    Undecided,
    state_vector,
    steps_within_bound,
    unknown_at_bound,
    unknown_on_solver_failure,
)

#: Seconds each induction step may take once one was undecided (quantified state, where a
#: deeper step can run for ever: the held-map model's step took 0.06 s at depth 0, 1.7 s at 3,
#: and did not end at 4).
UNDECIDED_STEP_SECONDS = 3.0
#: Seconds ``kind`` waits for an invariant without a deadline before it gives up.
IDLE_WAIT = 30.0


class KInduction(Engine):
    name = "kind"
    description = "k-induction (base case confirmed, lazy simple-path constraints)"
    # Deep enough for FMCAD08's counterexamples at steps 9-12 (car, cd: 0.1 s of the slice,
    # where a bound of 5 left them to ic3's slice or bmc's process, 0.5-0.8 s later); the
    # slice's time still bounds it.
    quick_bound = 12
    shortest_counterexamples = True

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        env = system.env
        mgr = env.formula_manager
        base = BaseCase(system, ctx.make_solver())
        step = ctx.make_solver()
        ub = Unroller(system)
        pending: dict[str, FNode] = {p.name: p.obligation(env) for p in properties}
        acts = {name: mgr.FreshSymbol(template=f"__hyp_{i}_%d")
                for i, name in enumerate(pending)}
        intake = InvariantIntake(system, ctx)
        told = False  # an undecided query has been reported
        #: the pairs of steps whose states the induction step assumes different
        distinct: list[tuple[int, int]] = []
        # a query z3 cannot finish would keep the invariants out for ever
        limits = QueryLimits(step, system.quantified())
        for k in steps_within_bound(ctx, pending):
            # Base case at step k; where the solver cannot decide it (quantified state), again
            # each time other engines publish invariants (assumed in both unrollings).
            while True:
                try:
                    yield from base.falsify(pending, k, self.name)
                    break
                except SolverUnknown as exc:
                    if not pending:
                        return
                    if isinstance(exc, Undecided) and len(exc.names) < len(pending):
                        # the others' base case holds (or failed): they go on without these
                        for name in exc.names:
                            del pending[name]
                            yield Verdict(name, Answer.UNKNOWN, engine=self.name,
                                          k=k - 1 if k else None,
                                          message=f"the solver could not decide a query: {exc}")
                        break
                    if not told:
                        told = True
                        yield from self._undecided(limits, pending, k - 1 if k else None, exc)
                    fresh = self._next_invariants(intake, ctx)
                    if not fresh:
                        raise
                    base.assume_invariants(fresh)
                    for lemma in fresh:
                        for j in range(k + 1):
                            ub.assert_at(step, lemma, j)
                    if k > 0:  # the last step checked may hold now
                        try:
                            proved = self._prove(limits, ub, system, pending, acts, k - 1, distinct)
                        except SolverUnknown:
                            proved = []
                        yield from self._valid(system, pending, proved, intake, k, distinct)
                        if not pending:
                            return
            if not pending:
                return
            ctx.reached(list(pending), k)
            # Induction step: hypothesis at 0..k, violation at k+1.
            for a in system.assumptions:
                ub.assert_at(step, a, k)
            ub.assert_at(step, system.trans, k)
            for name, f in pending.items():
                step.add(mgr.Implies(acts[name], ub.at(f, k)))
            fresh = intake.poll()
            base.assume_invariants(fresh)
            for lemma in fresh:
                for j in range(k + 1):
                    ub.assert_at(step, lemma, j)
            for lemma in intake.lemmas:
                ub.assert_at(step, lemma, k + 1)
            try:
                proved = self._prove(limits, ub, system, pending, acts, k, distinct)
            except SolverUnknown as exc:
                # An undecided step proves nothing at this depth; a deeper one, or the
                # invariants other engines publish meanwhile, may still settle it.
                if not told:
                    told = True
                    yield from self._undecided(limits, pending, k, exc)
                proved = []
            yield from self._valid(system, pending, proved, intake, k + 1, distinct)
        yield from unknown_at_bound(ctx, pending, self.name, "not k-inductive")

    def _valid(self, system: TransitionSystem, pending: dict[str, FNode],
               groups: list[list[str]], intake: InvariantIntake, k: int,
               distinct: list[tuple[int, int]]) -> Iterator[Verdict]:
        """A ``valid`` verdict at depth ``k`` for each property of ``groups`` (each group
        jointly ``k``-inductive, the invariants of ``intake`` assumed), removed from
        ``pending``; its :class:`Proof` is the group's conjunction with those invariants."""
        mgr = system.env.formula_manager
        for group in groups:
            invariant = to_smtlib(mgr.And([pending[n] for n in group] + intake.lemmas))
            proof = Proof(k, invariant, tuple(p for p in distinct if max(p) <= k))
            for name in group:
                del pending[name]
                yield Verdict(name, Answer.VALID, engine=self.name, k=k, proof=proof)

    def _undecided(self, limits: QueryLimits, pending: dict[str, FNode], k: int | None,
                   exc: SolverUnknown) -> Iterator[Verdict]:
        """The first undecided query: an ``unknown`` for each pending property (with the
        solver's reason, up to ``k``), and from now on a shorter time limit on every step
        (deeper quantified steps can run for ever; the invariants are read between them)."""
        limits.set(UNDECIDED_STEP_SECONDS)
        for name in pending:
            yield Verdict(name, Answer.UNKNOWN, engine=self.name, k=k,
                          message=f"the solver could not decide a query: {exc}")

    @staticmethod
    def _next_invariants(intake: InvariantIntake, ctx: EngineContext) -> list[FNode]:
        """The next invariants other engines publish, waited for while one that publishes runs
        beside (until the deadline; without one, for :data:`IDLE_WAIT` seconds at most);
        none when there is no such engine or the wait ends."""
        if not any(registry.engine(c).publishes_invariants for c in ctx.companions):
            return []
        start = time.monotonic()
        while not ctx.expired():
            fresh = intake.poll()
            if fresh:
                return fresh
            if ctx.deadline is None and time.monotonic() - start > IDLE_WAIT:
                return []
            time.sleep(0.2)
        return []

    def _prove(self, limits: QueryLimits, ub: Unroller, system: TransitionSystem,
               pending: dict[str, FNode], acts: dict[str, FNode], k: int,
               distinct: list[tuple[int, int]]) -> list[list[str]]:
        """:meth:`_step`, as the groups proved together; where the solver cannot decide the
        group's step (a property that is not inductive, on quantified state, leaves no model to
        split the group by; the group's query has a short limit there), each property's step
        alone, those undecided left out.  :class:`SolverUnknown` when no property's step is
        decided."""
        try:
            group = self._step(limits, ub, system, pending, acts, k, distinct)
            return [group] if group else []
        except SolverUnknown:
            if len(pending) < 2:
                raise
        proved: list[list[str]] = []
        decided = False
        for name in list(pending):
            try:
                alone = self._step(limits, ub, system, {name: pending[name]}, acts, k, distinct)
                proved += [alone] if alone else []
                decided = True
            except SolverUnknown as exc:
                last = exc
        if not decided:
            raise last
        return proved

    def _step(self, limits: QueryLimits, ub: Unroller, system: TransitionSystem,
              pending: dict[str, FNode], acts: dict[str, FNode], k: int,
              distinct: list[tuple[int, int]]) -> list[str]:
        """The largest subset of ``pending`` that is jointly (k+1)-inductive (the pairs of
        steps whose states it assumes different are added to ``distinct``)."""
        mgr = system.env.formula_manager
        step = limits.solver
        group = set(pending)
        next_assumptions = [ub.at(a, k + 1) for a in system.assumptions]
        while group:
            violation = mgr.Or([mgr.Not(ub.at(pending[n], k + 1)) for n in sorted(group)])
            hyp = [acts[n] for n in sorted(group)]
            query = mgr.And([violation, *next_assumptions])
            while True:
                several = limits.check_group if len(group) > 1 else step.check
                if not several([*hyp, query]):
                    return sorted(group)
                duplicate = self._duplicate_states(step, ub, system, k + 1)
                if duplicate is None:
                    break
                i, j = duplicate
                distinct.append((i, j))
                step.add(mgr.Or([mgr.Not(mgr.EqualsOrIff(a, b)) for a, b in
                                 zip(state_vector(ub, i), state_vector(ub, j), strict=True)]))
            model = step.values([ub.timed(v, k + 1) for v in system.current_vars])
            consts = {ub.timed(v, k + 1): model[ub.timed(v, k + 1)] for v in system.current_vars}
            failed = [n for n in group if not _holds_at(system, ub, pending[n], k + 1, consts)]
            if not failed:  # cannot happen with a complete model; stay sound regardless
                return []
            group -= set(failed)
        return []

    @staticmethod
    def _duplicate_states(solver, ub: Unroller, system: TransitionSystem,
                          last: int) -> tuple[int, int] | None:
        if not system.state_vars:
            return None
        vectors = [state_vector(ub, j) for j in range(last + 1)]
        flat = [v for vec in vectors for v in vec]
        values = solver.values(flat)
        seen: dict[tuple, int] = {}
        for j, vec in enumerate(vectors):
            key = tuple(values[v] for v in vec)
            if key in seen:
                return seen[key], j
            seen[key] = j
        return None


def _holds_at(system: TransitionSystem, ub: Unroller, formula: FNode, k: int, consts) -> bool:
    return holds(system.env, ub.at(formula, k), consts) is True
