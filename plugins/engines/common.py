"""Pieces every SAT-based engine shares: the base-case unrolling, trace extraction,
known-invariant intake and the time limits of queries on quantified systems."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.engine import Engine, EngineContext
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import Property, TransitionSystem, large
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer, Trace, Verdict

#: Seconds a query about one property may take on a system with quantified formulas (a query
#: the solver cannot finish would keep an engine at one step for ever).
QUANTIFIED_QUERY_SECONDS = 10.0
#: Seconds a query about several properties at once may take on such a system before they are
#: asked one at a time: the group's query is the hard one (z3 left the disjunction of six
#: set/map checks and a falsifiable seventh undecided at 10 s; each alone took 0.01-0.1 s).
GROUP_QUERY_SECONDS = 1.0
#: Seconds a base-case query on a quantifier-free system is tried incrementally, at least,
#: before it is asked afresh, where the first query was not decided within them
#: (:meth:`BaseCase._query`).  z3's incremental solver does not preprocess: the step-0 query of
#: a generated 1 MB Lucent model (55,000 variables defined by equations) took it more than 60 s,
#: afresh 0.9 s; on the deep unrollings of FMCAD08 models (BMC to step 20-30) incremental
#: solving was 1.1-6 times faster than afresh at every step (DRAGON_4: 15 s against 101 s).
AFRESH_AFTER = 0.2

CheckMethod = Callable[[Engine, TransitionSystem, Sequence[Property], EngineContext],
                       Iterator[Verdict]]


def unknown_on_solver_failure(check: CheckMethod) -> CheckMethod:
    """Wrap an engine's ``check``: when the solver cannot decide a query (it answers unknown,
    or refuses a term outside its logic), the properties the engine has not decided yet are
    checked again one at a time (quantifier-free ones first), and one the solver still cannot
    decide alone is answered ``unknown`` with the solver's reason, instead of the engine
    crashing."""

    @functools.wraps(check)
    def wrapper(self: Engine, system: TransitionSystem, properties: Sequence[Property],
                ctx: EngineContext) -> Iterator[Verdict]:
        decided: set[str] = set()
        try:
            for verdict in check(self, system, properties, ctx):
                if verdict.answer.definitive:
                    decided.add(verdict.property)
                yield verdict
        except SolverUnknown as exc:
            reason = f"the solver could not decide a query: {exc}"
            left = [p for p in properties if p.name not in decided]
            if len(left) > 1 and not ctx.expired():
                # The query may have failed on one property's terms (a quantifier): decide
                # the others one at a time, those free of quantifiers first.
                qf = system.env.qfo.is_qf
                for prop in sorted(left, key=lambda p: not qf(p.formula)):
                    yield from wrapper(self, system, [prop], ctx)
                return
            for prop in left:
                yield Verdict(prop.name, Answer.UNKNOWN, engine=self.name, message=reason)

    return wrapper


class Undecided(SolverUnknown):
    """The solver could not decide the queries of the obligations ``names``, asked one at a
    time (the others' were decided)."""

    def __init__(self, names: Sequence[str], reason: str) -> None:
        super().__init__(reason)
        self.names = tuple(names)


class QueryLimits:
    """The time limits of one solver's queries: on a quantified system (or once :meth:`set`)
    ``seconds`` for a query about one property and at most :data:`GROUP_QUERY_SECONDS` for
    one about several (which the caller then splits); none otherwise."""

    def __init__(self, solver: Solver, quantified: bool,
                 seconds: float = QUANTIFIED_QUERY_SECONDS) -> None:
        self.solver = solver
        self.quantified = quantified
        self.seconds: float | None = None
        if quantified:
            solver.expect_quantifiers()
            self.set(seconds)

    def set(self, seconds: float) -> None:
        """Limit each later query about one property to ``seconds``."""
        self.seconds = seconds
        self.solver.limit_time(seconds)

    def check_group(self, assumptions: Sequence[FNode]) -> bool:
        """``solver.check`` of a query about several properties, under the group's limit;
        :class:`SolverUnknown` when undecided."""
        if self.seconds is None or self.seconds <= GROUP_QUERY_SECONDS:
            return self.solver.check(assumptions)
        self.solver.limit_time(GROUP_QUERY_SECONDS)
        try:
            return self.solver.check(assumptions)
        finally:
            self.solver.limit_time(self.seconds)


def steps_within_bound(ctx: EngineContext, pending: Collection[str]) -> Iterator[int]:
    """The steps 0, 1, ... while ``pending`` (which the caller empties as it decides) is not
    empty, up to the bound ``ctx.max_k`` and until the deadline ``ctx.deadline``."""
    k = 0
    while pending and (ctx.max_k is None or k <= ctx.max_k) and not ctx.expired():
        yield k
        k += 1


def unknown_at_bound(ctx: EngineContext, pending: Iterable[str], engine: str,
                     unsettled: str) -> Iterator[Verdict]:
    """An ``unknown`` verdict for each property still pending when the bound ``ctx.max_k`` is
    reached, saying what was not found up to it (``unsettled``, e.g. "no counterexample")."""
    for name in pending:
        yield Verdict(name, Answer.UNKNOWN, engine=engine, k=ctx.max_k,
                      message=f"{unsettled} up to bound {ctx.max_k}")


def extract_trace(solver: Solver, unroller: Unroller, last: int, first: int = 0) -> Trace:
    """Read steps ``first..last`` of the current model in one batch."""
    system = unroller.system
    timed = [(k, v, unroller.timed(v, k)) for k in range(first, last + 1)
             for v in system.current_vars]
    values = solver.values([t for _, _, t in timed])
    steps: list[dict] = [{} for _ in range(first, last + 1)]
    for k, var, t in timed:
        steps[k - first][var.symbol_name()] = values[t]
    return Trace.of(steps)


def state_vector(unroller: Unroller, k: int) -> list[FNode]:
    return [unroller.timed(v, k) for v in unroller.system.state_vars]


class InvariantIntake:
    """Lemmas published by other engines, parsed once, ready to assert at any step."""

    def __init__(self, system: TransitionSystem, ctx: EngineContext) -> None:
        self.system = system
        self.ctx = ctx
        self.lemmas: list[FNode] = []

    def poll(self) -> list[FNode]:
        """Newly arrived lemmas (over current-step variables)."""
        texts = self.ctx.poll_invariants()
        if not texts:
            return []
        fresh = parse_lemmas(self.system, texts)
        self.lemmas.extend(fresh)
        return fresh


class BaseCase:
    """The unrolling from ``Init`` that ``bmc`` and ``kind``'s base case share: :meth:`violations`
    at step ``k`` extends it to ``k`` (``trans`` and the assumptions) and reports, with its
    trace, every obligation some path of ``k`` steps violates at its last step.  On a
    quantified system every query is time-limited (:class:`QueryLimits`)."""

    def __init__(self, system: TransitionSystem, solver: Solver) -> None:
        self.system = system
        self.solver = solver
        self.limits = QueryLimits(solver, system.quantified())
        self.unroller = Unroller(system)
        self.depth = -1
        #: Invariants proved elsewhere, assumed at every step (a real counterexample satisfies
        #: them; they make unsat queries easier where quantifiers stop the solver).
        self.invariants: list[FNode] = []
        #: The last query's time (s), and how long it was tried incrementally where it then
        #: went afresh (else None) (:meth:`_query`).
        self._last_query: tuple[float, float | None] = (0.0, None)
        #: Whether queries may go afresh: decided by the first one (:meth:`_query`), or at once
        #: on a large system.
        self._afresh: bool | None = None
        self._large = large(system)
        self.unroller.assert_at(solver, system.init, 0)

    def assume_invariants(self, lemmas: Sequence[FNode]) -> None:
        """Assume ``lemmas`` (proved invariants) at every step, those unrolled and later ones."""
        self.invariants.extend(lemmas)
        for lemma in lemmas:
            for j in range(self.depth + 1):
                self.unroller.assert_at(self.solver, lemma, j)

    def _extend(self, k: int) -> None:
        while self.depth < k:
            self.depth += 1
            if self.depth > 0:
                self.unroller.assert_at(self.solver, self.system.trans, self.depth - 1)
            for assumption in self.system.assumptions:
                self.unroller.assert_at(self.solver, assumption, self.depth)
            for lemma in self.invariants:
                self.unroller.assert_at(self.solver, lemma, self.depth)

    def violations(self, obligations: dict[str, FNode], k: int) -> Iterator[tuple[str, Trace]]:
        """Each obligation some path of ``k`` steps violates at its last step, with its trace.
        One query asks whether any is violated; where the solver cannot decide it (quantified
        state), or some is, each obligation is asked alone.  Ends with :class:`Undecided`
        (after yielding the violations found) when the solver could not decide some alone."""
        self._extend(k)
        mgr = self.system.env.formula_manager
        bad = {name: mgr.Not(self.unroller.at(f, k)) for name, f in obligations.items()}
        if not self.limits.quantified:
            yield from self._violations_afresh(bad, k)
            return
        if len(bad) > 1:
            try:
                if not self.limits.check_group([mgr.Or(bad.values())]):
                    return
            except SolverUnknown:
                pass  # a falsifiable sibling or one hard property: ask each alone
        undecided: list[str] = []
        reason = ""
        for name, violation in bad.items():
            try:
                violated = self.solver.check([violation])
            except SolverUnknown as exc:
                undecided.append(name)
                reason = str(exc)
                continue
            if violated:
                yield name, extract_trace(self.solver, self.unroller, k)
        if undecided:
            raise Undecided(undecided, reason)

    def _violations_afresh(self, bad: dict[str, FNode], k: int) -> Iterator[tuple[str, Trace]]:
        """:meth:`violations` on a quantifier-free system: one query (:meth:`_query`) asks
        whether any of ``bad`` holds; the model found is the trace of every obligation it
        violates; the query is asked again of the others until none is violated."""
        mgr = self.system.env.formula_manager
        left = dict(bad)
        while left:
            if not self._query(mgr.Or(left.values())):
                return
            truth = self.solver.values(list(left.values()))
            violated = [name for name, violation in left.items() if truth[violation] is True]
            if not violated:  # a model of the disjunction violates one; never seen otherwise
                raise SolverUnknown("the model of a violation violates no obligation")
            trace = extract_trace(self.solver, self.unroller, k)
            for name in violated:
                del left[name]
                yield name, trace

    def _query(self, violation: FNode) -> bool:
        """Whether ``violation`` is satisfiable: incrementally on a system whose first query
        the incremental solver decided within :data:`AFRESH_AFTER` seconds (every FMCAD08
        model); on one it did not (a large model's unrolled definitions, which a solver
        afresh preprocesses away), afresh (:meth:`Solver.check_afresh`) after an incremental
        try of :data:`AFRESH_AFTER` seconds at least, 4 times the last query's time where
        that was decided incrementally, twice the time the last one took afresh where it went
        afresh (hard queries of a deep unrolling, which incremental solving decides faster,
        go back to it).  A large system (:func:`~kinduct.kernel.system.large`) asks its first
        query afresh at once: the try decides there never (a generated 0.1 MB Lucent model took
        5.4 s incrementally, 0.11 s afresh; at 1 MB the try was a quarter of a second lost)."""
        if self._afresh is False:
            return self.solver.check([violation])
        last, tried = self._last_query
        after: float | None = max(AFRESH_AFTER, last * 4 if tried is None else (last - tried) * 2)
        if self._afresh is None and self._large:
            after = None
        start = time.monotonic()
        try:
            return self.solver.check_afresh([violation], after)
        finally:
            took = time.monotonic() - start
            went_afresh = after is None or took >= after
            self._last_query = (took, (after or 0.0) if went_afresh else None)
            if self._afresh is None:
                self._afresh = went_afresh

    def falsify(self, pending: dict[str, FNode], k: int, engine: str) -> Iterator[Verdict]:
        """A ``falsifiable`` verdict (found by ``engine``) for each of the ``pending``
        obligations violated at step ``k``, which is removed from ``pending`` (also when the
        solver then fails on another: :class:`Undecided` names those it could not decide)."""
        for name, trace in self.violations(pending, k):  # reads ``pending`` before deletions
            del pending[name]
            yield Verdict(name, Answer.FALSIFIABLE, engine=engine, k=k, trace=trace)
