"""Shortest counterexamples on request: a falsifiable verdict whose engine does not promise
the shortest trace (IC3 may re-enqueue a blocked obligation one frame up, and the chain through
it is then longer than the frame it started from) is checked by bounded model checking below
its length, and replaced by the shorter counterexample found there.

Used where the length means something to the user: the answering word of a language query is
documented as the shortest (:mod:`kinduct.frontends.crasp.queries`).
"""

from __future__ import annotations

import time

import attrs

from kinduct.kernel import registry
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

#: The engine that settles the question: it deepens one step at a time.
CHECKER = "bmc"


def promises_shortest(engine: str | None) -> bool:
    """Does the engine named ``engine`` (a verdict's) find counterexamples shortest first?"""
    known = registry.engines()
    return engine in known and known[engine].shortest_counterexamples


def shortest(system: TransitionSystem, verdict: Verdict, options: RunOptions,
             start: float | None = None) -> Verdict:
    """``verdict`` when it is not falsifiable, or its engine finds shortest counterexamples
    first, or :data:`CHECKER` finds no counterexample below its length within what is left of
    ``options.timeout`` (counted from ``start``); else the checker's shorter verdict (itself
    shortest)."""
    if (verdict.answer is not Answer.FALSIFIABLE or verdict.k is None or verdict.k == 0
            or promises_shortest(verdict.engine)):
        return verdict
    start = time.monotonic() if start is None else start
    timeout = options.timeout
    if timeout is not None:
        timeout = timeout - (time.monotonic() - start)
        if timeout <= 0:
            return verdict
    below = attrs.evolve(options, engines=(CHECKER,), max_k=verdict.k - 1, timeout=timeout,
                         properties=(verdict.property,), progress=None)
    [found] = run(system, below)
    return found if found.answer is Answer.FALSIFIABLE else verdict
