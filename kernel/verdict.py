"""Verdicts and traces: plain, picklable data that crosses process boundaries.

Nothing here holds a PySMT term, so engines running in child processes can send verdicts back
through a queue, and the JSON printer needs no solver.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

Value = bool | int | Fraction | str


class Answer(enum.Enum):
    """Kind 2's answer vocabulary plus ``error``."""

    VALID = "valid"
    FALSIFIABLE = "falsifiable"
    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"
    UNKNOWN = "unknown"
    ERROR = "error"

    @property
    def definitive(self) -> bool:
        return self in (Answer.VALID, Answer.FALSIFIABLE, Answer.REACHABLE, Answer.UNREACHABLE)


@attrs.frozen
class Trace:
    """A finite execution: ``steps[i]`` maps every variable's name to its value at step i."""

    steps: tuple[Mapping[str, Value], ...]

    @classmethod
    def of(cls, steps: Sequence[Mapping[str, Value]]) -> Trace:
        return cls(tuple(dict(s) for s in steps))

    def __len__(self) -> int:
        return len(self.steps)

    def column(self, name: str) -> list[Value]:
        return [step[name] for step in self.steps]


@attrs.frozen
class Proof:
    """How a valid verdict was proved, for certificates (:mod:`kinduct.kernel.certificates`).

    ``invariant`` (SMT-LIB over the system's current variables and rigid symbols) implies the
    property, holds at steps ``0..k-1`` of every execution from init, and is ``k``-inductive:
    at ``k`` consecutive steps where it holds (the assumptions holding there and at the next
    step) it holds at the next one.  ``distinct``: pairs ``(i, j)`` of steps ``0..k`` of that
    induction step whose states the proof assumed to differ (simple-path constraints; sound
    because the last states of a shortest counterexample are all different).
    """

    k: int
    invariant: str
    distinct: tuple[tuple[int, int], ...] = ()


@attrs.frozen
class Verdict:
    """The outcome for one property.

    ``k``: for valid, the induction depth; for falsifiable, the index of the violating step.
    ``invariant``: an inductive invariant (SMT-LIB text) certifying a valid verdict.
    ``proof``: for a valid verdict of an engine that proved it by k-induction, the k-inductive
    invariant (:class:`Proof`; an ``invariant`` is a 1-inductive one).
    ``extra``: frontend additions to the JSON property object (e.g. the word that a word
    acceptor's counterexample reads).
    ``on_implementations``: for a counterexample (witness) of an analysis that reads some
    components by their contracts, whether its inputs violate (reach) the property with the
    implementations too (None: not asked, or the frontend cannot tell).
    """

    property: str
    answer: Answer
    engine: str | None = None
    solver: str | None = None
    k: int | None = None
    runtime: float = 0.0
    trace: Trace | None = None
    invariant: str | None = None
    message: str | None = None
    timeout: bool = False
    extra: Mapping[str, Any] = attrs.field(factory=dict)
    on_implementations: bool | None = None
    proof: Proof | None = None

    def evolve(self, **changes: Any) -> Verdict:
        return attrs.evolve(self, **changes)


def exit_code(verdicts: Sequence[Verdict]) -> int:
    """Kind 2's exit codes: 40 when something is falsified (or a target is unreachable),
    30 when something is unknown, 0 when everything holds; 1 on an engine error."""
    answers = {v.answer for v in verdicts}
    if Answer.FALSIFIABLE in answers or Answer.UNREACHABLE in answers:
        return 40
    if Answer.ERROR in answers:
        return 1
    if Answer.UNKNOWN in answers:
        return 30
    return 0
