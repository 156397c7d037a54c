"""How z3 checks: incrementally, and for quantified formulas (Lucent's sets and maps), where
that is undecided, a second try afresh: the same assertions in a new, non-incremental solver,
where z3 preprocesses them, with model-based quantifier instantiation alone (no e-matching).
Both kept z3 from the model of a falsifiable set/map check: undecided at 10 s incrementally,
sat in 0.02 s afresh (afresh with e-matching: undecided too).

:func:`solve` is the check afresh that engines ask for (``Solver.check_afresh``): z3's
incremental core does not preprocess, and on the step-0 query of a generated 0.1 MB Lucent
model (5,566 variables defined by equations) it searched 5.4 s (3,190 conflicts) where a new
solver, which solves the equations away first, took 0.11 s (1 MB: 0.87 s afresh, no answer in
60 s incrementally, with or without z3's incremental simplifiers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def check(solver: Any, natives: list[Any], incremental: Callable[[], Any], quantified: bool,
          seconds: float | None) -> tuple[Any, Any, bool]:
    """``incremental()`` (a check of ``solver``, a ``z3.Solver`` limited to ``seconds``, under
    the assumptions ``natives``); when ``quantified``, within half of ``seconds``, and where
    undecided, a check afresh within the other half.  Returns z3's answer, the model when sat
    (else None) and whether the answer came from the check afresh."""
    import z3

    if not quantified:
        res = incremental()
        return res, (solver.model() if res == z3.sat else None), False
    half = None if seconds is None else seconds / 2
    solver.set("timeout", _milliseconds(half))
    try:
        res = incremental()
    finally:
        solver.set("timeout", _milliseconds(seconds))
    if res != z3.unknown:
        return res, (solver.model() if res == z3.sat else None), False
    fresh = z3.Solver(ctx=solver.ctx)
    fresh.set("ematching", False)
    fresh.set("timeout", _milliseconds(half))
    fresh.add(solver.assertions())
    fresh.add(natives)
    res = fresh.check()
    if res == z3.unknown:  # the first try's reason is the one to report
        return res, None, False
    return res, (fresh.model() if res == z3.sat else None), True


def solve(solver: Any, natives: list[Any], seconds: float | None) -> tuple[Any, Any, str]:
    """The assertions of ``solver`` (a ``z3.Solver``) and ``natives`` (asserted) decided by a
    new, non-incremental solver within ``seconds``: z3's answer, its model when sat (else
    None) and its reason when unknown; ``solver`` is untouched."""
    import z3

    fresh = z3.Solver(ctx=solver.ctx)
    if seconds is not None:
        fresh.set("timeout", _milliseconds(seconds))
    fresh.add(solver.assertions())
    fresh.add(natives)
    res = fresh.check()
    return res, (fresh.model() if res == z3.sat else None), fresh.reason_unknown()


def _milliseconds(seconds: float | None) -> int:
    """z3's ``timeout`` parameter for ``seconds`` (0: none)."""
    return 0 if seconds is None else max(1, int(seconds * 1000))
