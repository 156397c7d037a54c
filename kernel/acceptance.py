"""The single acceptance path of every verdict, an engine's or an external checker's.

A falsifiable verdict is replayed on the system (init, trans, assumptions) and on the
frontend's own semantics before it is accepted; a valid one is certified with the other SMT
backend under ``--certify``; reachability verdicts are mapped back from the invariant engines
decide.  The first definitive verdict per property wins; of the unknown ones the one with the
largest bound reached is kept, and the largest bound any engine reached (:meth:`Ledger.reach`)
is what an undecided property reports (Kind 2's ``trueFor``) (:class:`Ledger`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import attrs

from kinduct.kernel import registry
from kinduct.kernel.beside import Beside, worth_a_fork
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import Inconclusive, Property, PropertyKind, TransitionSystem, Unconfirmed
from kinduct.kernel.verdict import Answer, Trace, Verdict


@attrs.frozen
class Acceptance:
    """What :func:`accept` makes of a verdict: the verdict to report, and whether it settles
    the property (False: a counterexample the solver's model does not support; the property
    stays open for other engines, ``verdict`` is its ``unknown`` form)."""

    verdict: Verdict
    settles: bool = True


def accept(system: TransitionSystem, prop: Property, verdict: Verdict) -> Acceptance:
    """Replay a falsifiable verdict's trace; one that does not replay is an internal error.
    On an analysis that reads components by their contracts, the trace is one of that
    abstraction, and :attr:`Verdict.on_implementations` says whether it is real too."""
    if verdict.answer is not Answer.FALSIFIABLE:
        return Acceptance(verdict)
    if verdict.trace is None:
        return Acceptance(verdict.evolve(
            answer=Answer.ERROR, message="internal error: falsifiable verdict without a trace"))
    problem = _replays(system, prop, verdict.trace)
    if isinstance(problem, Unconfirmed):
        return Acceptance(verdict.evolve(answer=Answer.UNKNOWN, trace=None, message=str(problem)),
                          settles=False)
    if isinstance(problem, Inconclusive):
        return Acceptance(verdict.evolve(answer=Answer.UNKNOWN, trace=None, message=str(problem)))
    if problem is not None:
        return Acceptance(verdict.evolve(
            answer=Answer.ERROR, message=f"internal error: counterexample does not replay: {problem}"))
    if system.abstraction.abstract and system.on_implementations is not None:
        # a counterexample of the abstraction, reported as such; whether it is real is said
        return Acceptance(verdict.evolve(
            on_implementations=system.on_implementations(verdict.trace, prop)))
    return Acceptance(verdict)


def _replays(system: TransitionSystem, prop: Property, trace: Trace) -> str | None:
    """What the kernel's replay (:func:`replay_trace`) says is wrong with ``trace``, else what
    the frontend's replay (``system.replay``) says, else None.  On a large trace both run at
    once (:func:`~kinduct.kernel.beside.worth_a_fork`), the kernel's in a forked process; the
    answer is the same."""
    kernel = system.bounded is None
    frontend = system.replay
    if kernel and frontend is not None and worth_a_fork(trace):
        beside = Beside(lambda: replay_trace(system, trace, prop))
        theirs = frontend(trace, prop)
        ours = beside.result()
        return theirs if ours is None else ours
    problem = replay_trace(system, trace, prop) if kernel else None
    if problem is None and frontend is not None:
        problem = frontend(trace, prop)
    return problem


def map_reachability(prop: Property, verdict: Verdict) -> Verdict:
    """Engines decide the invariant ``not target``; reachability verdicts are its dual."""
    if prop.kind is not PropertyKind.REACHABLE:
        return verdict
    mapping = {Answer.FALSIFIABLE: Answer.REACHABLE, Answer.VALID: Answer.UNREACHABLE}
    return verdict.evolve(answer=mapping.get(verdict.answer, verdict.answer))


def certify_verdict(system: TransitionSystem, prop: Property, verdict: Verdict,
                    solver: str) -> Verdict:
    """``--certify``: re-check a valid verdict's certificate (its inductive invariant, or its
    k-inductive :class:`~kinduct.kernel.verdict.Proof`) with the other SMT backend; a
    certificate it rejects turns the verdict into an error."""
    from kinduct.kernel.certify import certify, certify_proof

    if verdict.invariant is None and verdict.proof is None:
        return verdict
    other = registry.other_solver(solver)
    if verdict.invariant is not None:
        problem = certify(system, prop, verdict.invariant, other)
    else:  # a k-inductive proof (kind's)
        problem = certify_proof(system, prop, verdict.proof, other)
    extra = {**verdict.extra, "certified": problem is None, "certifiedBy": other}
    if problem is None:
        return verdict.evolve(extra=extra)
    return verdict.evolve(answer=Answer.ERROR, extra=extra,
                          message=f"certificate rejected by {other}: {problem}")


class Ledger:
    """The verdicts of one run so far, for the properties ``props`` of ``system`` (``start``:
    when the run started; ``solver``: its SMT backend; ``certify``: valid verdicts are
    re-checked with the other one)."""

    def __init__(self, system: TransitionSystem, props: Sequence[Property], start: float,
                 solver: str, certify: bool = False) -> None:
        self.system, self.props, self.start = system, list(props), start
        self.solver, self.certify = solver, certify
        self.by_name = {p.name: p for p in props}
        self.decided: dict[str, Verdict] = {}
        self.best_unknown: dict[str, Verdict] = {}
        #: property -> (k, engine): no violation at steps 0..k, the largest k reported.
        self.reached: dict[str, tuple[int, str]] = {}

    def complete(self) -> bool:
        """Whether every property is decided."""
        return len(self.decided) >= len(self.props)

    def open(self) -> list[Property]:
        """The properties not decided yet, in order."""
        return [p for p in self.props if p.name not in self.decided]

    def take(self, verdict: Verdict) -> Verdict | None:
        """Accept ``verdict`` (replay, certification, reachability mapping) if it concerns an
        open property; returns it as received (None when it concerns no open property)."""
        prop = self.by_name.get(verdict.property)
        if prop is None or verdict.property in self.decided:
            return None
        verdict = verdict.evolve(runtime=time.monotonic() - self.start)
        if verdict.answer.definitive:
            accepted = accept(self.system, prop, verdict)
            if not accepted.settles:  # another engine may still settle it
                self.best_unknown.setdefault(prop.name, accepted.verdict)
                return verdict
            final = accepted.verdict
            if final.answer is Answer.VALID and self.certify:
                final = certify_verdict(self.system, prop, final, self.solver)
            self.decided[prop.name] = map_reachability(prop, final)
        elif verdict.answer is Answer.ERROR:
            self.decided[prop.name] = verdict
        else:
            known = self.best_unknown.get(prop.name)
            if known is None or (verdict.k or -1) >= (known.k or -1):
                self.best_unknown[prop.name] = verdict  # the largest bound reached
        return verdict

    def reach(self, names: Sequence[str], k: int, engine: str) -> bool:
        """``engine`` showed that no execution violates ``names`` at steps ``0..k``; True when
        that raises the bound of an open property."""
        raised = False
        for name in names:
            if name not in self.by_name or name in self.decided:
                continue
            known = self.reached.get(name)
            if known is None or k > known[0]:
                self.reached[name] = (k, engine)
                raised = True
        return raised

    def results(self, notes: dict[str, str], sources: int, timed_out: bool) -> list[Verdict]:
        """One verdict per property, in order: decided ones, else unknown (or error when every
        one of the ``sources`` refused; ``notes``: why engines failed, by engine)."""
        results: list[Verdict] = []
        for prop in self.props:
            if prop.name in self.decided:
                results.append(self.decided[prop.name])
                continue
            unk = self.best_unknown.get(prop.name)
            noted = "; ".join(notes.values())
            if unk and unk.message:
                message = unk.message
            elif timed_out:  # the time ran out; what failed beside is said too
                message = f"timeout ({noted})" if noted else "timeout"
            else:
                message = noted or None
            all_refused = bool(notes) and len(notes) == sources and not unk
            engine, k = (unk.engine, unk.k) if unk else (None, None)
            bound = self.reached.get(prop.name)
            if bound is not None and (k is None or bound[0] > k):
                k = bound[0]
                engine = engine or bound[1]
            results.append(Verdict(
                property=prop.name,
                answer=Answer.ERROR if all_refused and k is None else Answer.UNKNOWN,
                engine=engine,
                solver=self.solver,
                k=k,
                runtime=time.monotonic() - self.start,
                message=message,
                timeout=timed_out,
            ))
        return results
