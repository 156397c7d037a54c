"""Bounded-only problems: questions asked of all inputs up to a length, with no transition
relation (a program that attends to the whole input at once has no step function).

A :class:`BoundedProblem` offers, for each length n, a formula whose models are the inputs of
length n that violate a property.  The ``bmc`` engine decides it length by length; engines that
need a transition relation refuse it.  A system carries it as ``TransitionSystem.bounded``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from pysmt.environment import Environment
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Trace


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


def bounded_system(problem: BoundedProblem, properties: Sequence[Property],
                   name: str = "main", replay=None, lift=None) -> TransitionSystem:
    """A system shell carrying a bounded problem: no states, no transitions."""
    builder = SystemBuilder(name, env=problem.env)
    for prop in properties:
        builder.add_property(prop)
    builder.bounded = problem
    return builder.build(lift=lift, replay=replay)
