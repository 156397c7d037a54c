"""Clocks: the steps at which a lazy branch, an activated or sampled call runs. The checker
makes them (``check.lazy.make_clock``); the translation, the simulator and the lift of traces
read them."""

from __future__ import annotations

from dataclasses import dataclass

from kinduct.frontends.lucent.core import ast as A

#: The lazy Boolean operators.
LAZY_OPS = ("and then", "or else", "==>")


@dataclass(eq=False)
class Clock:
    """The steps where a lazy branch is selected: those of ``parent`` (every step of the node
    instance when None) where ``cond`` (evaluated on ``parent``) is ``positive``."""

    cond: A.Expr
    positive: bool
    parent: Clock | None
    #: Unique; names the clock's state in the translation (``%seen.<name>``).
    name: str


def clock_of(e: object) -> Clock | None:
    """The clock of a checked ``pre``, ``->``, call, ``any`` or obligation (None: the node's)."""
    return getattr(e, "clock", None)
