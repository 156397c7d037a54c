"""Property-directed Houdini over the term graph's candidates (:mod:`.termgraph`).

Houdini over every candidate of the graph asks the solver about each of them, some of which
it cannot decide in seconds (on microwave22 an observer with ``div`` took z3 over 2 s twice,
and Houdini 6-10 s of processor time in all).  A proof needs few of them (47 of some 200 on
microwave27).  Here the candidates are assumed, each under its own literal, at steps
``0..k-1``, and only what a proof asks is checked at step ``k``: the property, then the
candidates in its unsat core, then those in theirs, until the chosen set is closed.  A model
of a query drops every candidate it falsifies at step ``k`` (none of them is ``k``-inductive
relative to those alive: Houdini's rule) and the closure starts again, reusing the cores
whose candidates are all still alive.  An undecided query about a candidate drops it; about
the property, ends the search.

What comes back is the property with the chosen candidates, which is ``k``-inductive with
the assumptions at every step; :func:`prove_directed` checks it with
:func:`~kinduct.kernel.certify.check_proof` (base case included: the graph's candidates are
only known to hold on the states seen) before it returns a proof.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.certify import check_proof
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.lemmas import to_smtlib
from kinduct.kernel.system import Property, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Proof

#: Seconds (processor seconds on a busy machine: the caller's pace) a query may take.
QUERY_SECONDS = 1.0
#: Models (each a restart of the closure) before the search gives up.
MAX_MODELS = 200
#: Candidates per query of a Houdini pass over the survivors.
CHUNK = 8
#: Seconds a chunk's query may take in a pass that only looks for models.
SCAN_SECONDS = 0.3


def choose(system: TransitionSystem, goal: FNode, candidates: Sequence[FNode],
           ctx: EngineContext, k: int, deadline: float,
           limit: float = QUERY_SECONDS) -> list[int] | None:
    """Indices of ``candidates`` that, with ``goal``, are ``k``-inductive (assumed at steps
    ``0..k-1`` with the assumptions at steps ``0..k``, they and ``goal`` hold at step ``k``);
    None when the candidates that survive do not make ``goal`` so, a query about ``goal`` stays
    undecided or ``deadline`` passes first.  Nothing here says they hold initially."""
    return _choose(system, goal, candidates, ctx, k, deadline, limit)[0]


def _choose(system: TransitionSystem, goal: FNode, candidates: Sequence[FNode],
            ctx: EngineContext, k: int, deadline: float, limit: float,
            stalled: Callable[[], None] = lambda: None) -> tuple[list[int] | None, bool]:
    """:func:`choose`'s answer, and whether a None is a refutation: the survivors, a superset
    of every subset of the candidates that is ``k``-inductive on its own (no query was
    undecided), are ``k``-inductive with ``goal`` and ``goal`` is not."""
    search = _Search(system, goal, candidates, ctx, k, deadline, limit, stalled)
    try:
        chosen = search.run()
        return chosen, chosen is None and search.refuted and not search.guessed
    finally:
        search.solver.close()


class _Stuck(Exception):
    """The closure cannot go on: the deadline passed or too many models were needed."""


class _Search:
    """:func:`choose`'s solver (the candidates under literals at steps ``0..k-1``), the
    candidates alive and the unsat cores known (a core stays valid while its candidates
    live)."""

    def __init__(self, system: TransitionSystem, goal: FNode, candidates: Sequence[FNode],
                 ctx: EngineContext, k: int, deadline: float, limit: float,
                 stalled: Callable[[], None] = lambda: None) -> None:
        mgr = self.mgr = system.env.formula_manager
        ub = Unroller(system)
        self.lits = [mgr.FreshSymbol(template="__directed_%d") for _ in candidates]
        self.of_lit = {lit: i for i, lit in enumerate(self.lits)}
        self.solver = solver = ctx.make_solver()
        for j in range(k + 1):
            solver.add_all(ub.at(a, j) for a in system.assumptions)
            if j == k:
                break
            solver.add(ub.at(system.trans, j))
            solver.add(ub.at(goal, j))
            solver.add_all(mgr.Implies(lit, ub.at(c, j))
                           for lit, c in zip(self.lits, candidates, strict=True))
        self.at_k = [ub.at(c, k) for c in candidates]
        self.goal_k = ub.at(goal, k)
        self.alive = set(range(len(candidates)))
        self.cores: dict[int, set[int]] = {}  # -1: the goal's
        self.deadline, self.limit, self.models = deadline, limit, 0
        #: The goal failed with every survivor; a candidate was dropped undecided.
        self.refuted = self.guessed = False
        #: Called when the goal first fails with every survivor (the slow part begins).
        self.stalled = stalled

    def run(self) -> list[int] | None:
        goal_limit = self.limit
        try:
            while True:
                outcome = self._closure(goal_limit)
                if isinstance(outcome, list):
                    return outcome
                if outcome == "dropped":
                    continue
                # The goal fails with every survivor at step k, or its query is undecided:
                # check the survivors themselves (Houdini's pass), then ask again.
                if outcome == "failed":
                    self.stalled()
                    if not self._scan(thorough=True):
                        self.refuted = True  # the survivors are k-inductive, the goal is not
                        return None
                    continue
                # Undecided: models that drop survivors come cheap and may make it easier.
                self._scan(thorough=False)
                goal_limit *= 2
                if goal_limit > 4 * self.limit:
                    return None
        except _Stuck:
            return None

    def _query(self, targets: Sequence[FNode], limit: float) -> bool | None:
        """Is some of ``targets`` false at step ``k`` with every survivor before it (the
        candidates a model falsifies there are dropped)?  None when undecided."""
        if time.monotonic() > self.deadline or self.models > MAX_MODELS:
            raise _Stuck
        live = sorted(self.alive)
        self.solver.limit_time(limit)
        try:
            sat = self.solver.check([*(self.lits[n] for n in live),
                                     self.mgr.Or([self.mgr.Not(t) for t in targets])])
        except SolverUnknown:
            return None
        if sat:
            self.models += 1
            vals = self.solver.values([self.at_k[n] for n in live])
            self.alive -= {n for n in live if not vals[self.at_k[n]]}
        return sat

    def _core(self) -> set[int]:
        return {self.of_lit[a] for a in self.solver.unsat_core() if a in self.of_lit}

    def _closure(self, goal_limit: float) -> list[int] | str:
        """The goal and the candidates its cores need, transitively: their indices, or
        "dropped" (a model or an undecided query dropped a candidate), "failed" (a model of
        the goal's query falsified no survivor) or "undecided" (the goal's query)."""
        chosen: set[int] = set()
        todo = [-1]
        while todo:
            i = todo.pop()
            core = self.cores.get(i)
            if core is None or not core <= self.alive:
                before = len(self.alive)
                target = self.goal_k if i < 0 else self.at_k[i]
                sat = self._query([target], goal_limit if i < 0 else self.limit)
                if sat is None:
                    if i < 0:
                        return "undecided"
                    self.alive.discard(i)
                    self.guessed = True
                    return "dropped"
                if sat:
                    return "dropped" if len(self.alive) < before else "failed"
                core = self.cores[i] = self._core()
            fresh = core - chosen
            chosen |= fresh
            todo.extend(sorted(fresh))
        return sorted(chosen)

    def _scan(self, thorough: bool) -> bool:
        """One Houdini pass over the survivors, :data:`CHUNK` at a time, skipping those whose
        core is still valid; did it drop any?  ``thorough``: one by one where a chunk's query
        is undecided, an undecided one dropped; else each chunk under :data:`SCAN_SECONDS`
        and an undecided chunk left as it is (a pass that only looks for models)."""
        before = len(self.alive)
        order = [i for i in sorted(self.alive)
                 if i not in self.cores or not self.cores[i] <= self.alive]
        for start in range(0, len(order), CHUNK):
            chunk = [i for i in order[start:start + CHUNK] if i in self.alive]
            if not chunk:
                continue
            limit = self.limit if thorough else min(self.limit, SCAN_SECONDS)
            sat = self._query([self.at_k[i] for i in chunk], limit)
            if sat is False:
                core = self._core()
                self.cores.update((i, core) for i in chunk)
            elif sat is None and thorough:
                for i in chunk:
                    if i not in self.alive:
                        continue
                    one = self._query([self.at_k[i]], self.limit)
                    if one is None:
                        self.alive.discard(i)
                        self.guessed = True
                    elif one is False:
                        self.cores[i] = self._core()
        return len(self.alive) < before


@attrs.frozen
class Outcome:
    """:func:`prove_directed`'s answer: the checked ``proof``, or none; ``refuted``: none
    because at every depth tried no query was undecided and the goal was not ``k``-inductive
    with the survivors (Houdini over every candidate, then a proof from its invariants, cannot
    do better at those depths: its invariants are among the survivors)."""

    proof: Proof | None
    refuted: bool = False


def prove_directed(system: TransitionSystem, prop: Property, candidates: Sequence[FNode],
                   ctx: EngineContext, deadline: float, max_k: int = 2,
                   limit: float = QUERY_SECONDS, min_k: int = 1,
                   stalled: Callable[[], None] = lambda: None) -> Outcome:
    """A ``k``-inductive proof (``min_k <= k <= max_k``) of ``prop`` whose invariant is the
    property and the candidates :func:`choose` picks, checked by
    :func:`~kinduct.kernel.certify.check_proof` on a fresh solver.  The candidates should
    hold at steps ``0..max_k-1`` of every execution (the term graph's do, refined at those
    depths); where the chosen ones do not, the check rejects the proof.  ``stalled()`` is
    called when the property first fails with every survivor (Houdini's passes follow: on a
    violated property they take seconds)."""
    mgr = system.env.formula_manager
    goal = prop.obligation(system.env)
    refuted = True
    for k in range(min_k, max_k + 1):
        chosen, no = _choose(system, goal, candidates, ctx, k, deadline, limit, stalled)
        refuted = refuted and no
        if chosen is None:
            continue
        phi = mgr.And([goal, *(candidates[i] for i in chosen)])
        proof = Proof(k, to_smtlib(phi))
        checker = ctx.make_solver()
        try:
            problem = check_proof(system, prop, proof, phi, checker)
        except SolverUnknown:
            problem = "undecided"
        finally:
            checker.close()
        if problem is None:
            return Outcome(proof)
        refuted = False
    return Outcome(None, refuted)
