"""Which steps a counterexample or a simulation shows for a node instance on a clock, as Kind 2
shows them: an activated instance (``activate`` in a ``merge``, a call in a lazy branch) only
at the steps where it steps; a ``condact``-like one (``Call.held``, :mod:`.activation`), and
the instances it calls that are not on a clock of their own, at every step from its first
tick on, with the values of its last tick between ticks (Kind 2 also shows its outputs' defaults
and arbitrary other values before the first tick; kinduct shows none there)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core.clocks import clock_of


def shown(stepped: Sequence[bool] | None, held: bool, length: int) -> list[tuple[int, int]]:
    """The steps shown, each with the step whose values it shows; ``stepped``: whether the
    instance stepped at each step (None: at every one)."""
    if stepped is None:
        return [(k, k) for k in range(length)]
    out: list[tuple[int, int]] = []
    last = None
    for k, ticked in enumerate(stepped):
        if ticked:
            last = k
        if last is not None and (ticked or held):
            out.append((k, last))
    return out


def held_below(call: A.Call, held: bool) -> bool:
    """Whether the instance of ``call``, made by an instance shown ``held``, is shown held: a
    held call's, or an unclocked call's below a held instance."""
    return bool(getattr(call, "held", False)) or (held and clock_of(call) is None)


def clocked(calls: Iterator[A.Call]) -> bool:
    """Whether any of ``calls`` is on a clock (then the steps shown need a simulation)."""
    return any(clock_of(c) is not None for c in calls)
