"""Replaying a trace on a system's own init, trans and assumptions (DESIGN §9).

A counterexample is printed only after it replays: init holds at step 0, every assumption holds
at every step, trans holds between consecutive steps, and the property fails at the last step.
"""

from __future__ import annotations

from functools import cached_property

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.evaluate import Computed, Undecided, computable, holds, satisfiable, substituted
from kinduct.kernel.frontend import gc_paused
from kinduct.kernel.system import Inconclusive, Property, TransitionSystem, Unconfirmed
from kinduct.kernel.verdict import Trace, Value


@attrs.frozen
class _Assignment:
    """Values by variable (as the trace gives them) and their evaluable forms."""

    values: dict[FNode, Value]
    computable: dict[FNode, Computed]

    @classmethod
    def of(cls, values: dict[FNode, Value]) -> _Assignment:
        return cls(values, computable(values))

    def union(self, other: _Assignment, names: dict[FNode, FNode]) -> _Assignment:
        """This assignment and ``other``'s values under ``names`` (current to next)."""
        values = dict(self.values)
        ready = dict(self.computable)
        for var, name in names.items():
            if var in other.values:
                values[name] = other.values[var]
            if var in other.computable:
                ready[name] = other.computable[var]
        return _Assignment(values, ready)


def _step(system: TransitionSystem, trace: Trace, k: int) -> _Assignment:
    values = trace.steps[k]
    return _Assignment.of({var: values[var.symbol_name()] for var in system.current_vars
                           if var.symbol_name() in values})


def _holds(system: TransitionSystem, formula: FNode, step: _Assignment) -> bool | None:
    return holds(system.env, formula, step.values, step.computable)


def replay_trace(system: TransitionSystem, trace: Trace, prop: Property,
                 expect_violation_at_end: bool = True) -> str | None:
    """None when ``trace`` is a genuine execution ending in a violation of ``prop``'s
    obligation; otherwise a message saying where it breaks (an :class:`Inconclusive` one
    where a quantified formula cannot be decided on the trace's values)."""
    try:
        with gc_paused():  # a trace's values and evaluations: live objects, no cycles
            return _replay(system, trace, prop, expect_violation_at_end)
    except Undecided as exc:
        return Inconclusive(f"the counterexample cannot be confirmed: {exc}")


class _Rigid:
    """What the trace says of the system's rigid symbols (uninterpreted functions, which it
    holds no value of): each formula over them alone, once the trace's values are put in, is
    kept, and the trace replays only if one interpretation satisfies them all."""

    def __init__(self, system: TransitionSystem) -> None:
        self.system = system
        self.kept: list[FNode] = []

    @cached_property
    def symbols(self) -> frozenset[FNode]:
        """The system's rigid symbols, found only when a formula is left undecided: finding
        them walks every formula of the system (seconds on a large model)."""
        return self.system.rigid_symbols()

    def holds(self, formula: FNode, step: _Assignment, want: bool = True) -> bool | None:
        """``_holds``, where a formula left over the rigid symbols counts as ``want`` (and is
        kept, to be satisfied together with the others)."""
        got = _holds(self.system, formula, step)
        if got is not None or not self.symbols:
            return got
        env = self.system.env
        ground = env.simplifier.simplify(substituted(env, formula, step.values))
        if ground.is_bool_constant():
            return ground.constant_value()
        if not env.fvo.get_free_variables(ground) <= self.symbols:
            return None
        self.kept.append(ground if want else env.formula_manager.Not(ground))
        return want

    def consistent(self) -> bool:
        """Whether one interpretation of the rigid symbols satisfies every kept formula."""
        if not self.kept:
            return True
        return satisfiable(self.system.env, self.system.env.formula_manager.And(self.kept))


def _broken(system: TransitionSystem, formula: FNode, what: str) -> str:
    """The message for a trace that breaks the system's own ``formula``: a defect (of an
    engine or of the solver), except where ``formula`` is quantified, where a solver's model
    need not be one (z3 has returned arrays that break a quantified assertion it was given):
    then the trace proves nothing, and the property stays open (:class:`Unconfirmed`)."""
    if system.env.qfo.is_qf(formula):
        return what
    return Unconfirmed(f"{what}: the solver's model breaks a quantified formula of the system")


def _replay(system: TransitionSystem, trace: Trace, prop: Property,
            expect_violation_at_end: bool) -> str | None:
    if len(trace) == 0:
        return "empty trace"
    steps = [_step(system, trace, k) for k in range(len(trace))]
    rigid = _Rigid(system)
    if rigid.holds(system.init, steps[0]) is not True:
        return _broken(system, system.init, "init does not hold at step 0")
    to_next = dict(zip(system.state_vars, system.next_vars, strict=True))
    for k, step in enumerate(steps):
        for assumption in system.assumptions:
            if rigid.holds(assumption, step) is not True:
                return _broken(system, assumption, f"an assumption fails at step {k}")
        if k + 1 < len(steps):
            if rigid.holds(system.trans, step.union(steps[k + 1], to_next)) is not True:
                return _broken(system, system.trans,
                               f"trans does not hold between steps {k} and {k + 1}")
    if expect_violation_at_end:
        obligation = prop.obligation(system.env)
        if rigid.holds(obligation, steps[-1], want=False) is not False:
            return f"property {prop.name} is not violated at the last step {len(steps) - 1}"
    if not rigid.consistent():
        return "no interpretation of the system's uninterpreted functions agrees with the trace"
    return None
