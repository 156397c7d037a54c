"""Ranges of integer registers, proved inductive and added as assumptions: a sound
strengthening of a transition system that loses no path.

For each integer register (a constant initial value ``c0`` and a functional update ``f``, as
:mod:`kinduct.kernel.registers` finds them) the candidate range is ``lo <= v <= hi`` with
``lo``/``hi`` the least/greatest of ``c0`` and the integer constants of ``f`` (a position
modulo 2, ``ite(v = 1, 0, v + 1)``: ``[0, 1]``; a saturated counter,
:mod:`kinduct.kernel.saturation`: ``[c0, cap]``).  The candidates are then filtered as in
Houdini: assuming all remaining ranges and the assumptions in one state, a step whose next
state leaves a range drops that range, until no step leaves any.  What remains is an
inductive invariant (each range holds initially, since it contains ``c0``, and is kept by
every step from a state within all of them), so it holds in every reachable state: assuming
it at every step removes no path (the same verdicts and counterexamples), and an inductive
invariant of the strengthened system, conjoined with the ranges, is one of the original.

What it buys: ``kind``'s induction step no longer starts from unreachable register values
(a position modulo 2 equal to 5, counting up for ever), so finite-state acceptor products
become k-inductive at a small depth.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.backend import Solver
from kinduct.kernel.quick import Bounded
from kinduct.kernel.registers import initial_values, register_updates
from kinduct.kernel.system import TransitionSystem

#: Houdini rounds before giving up (each drops at least one range).
MAX_ROUNDS = 20
#: Seconds for the whole pass (its filter); past them (or undecided) nothing is assumed.
SECONDS = 2.0


@attrs.frozen
class Ranged:
    """The strengthened ``system`` and each register's proved range ``(lo, hi)``."""

    system: TransitionSystem
    ranges: Mapping[FNode, tuple[int, int]]


def _constants(term: FNode) -> set[int]:
    seen: set[FNode] = set()
    found: set[int] = set()
    stack = [term]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.is_int_constant():
            found.add(n.constant_value())
        stack.extend(n.args())
    return found


def candidates(system: TransitionSystem) -> dict[FNode, tuple[int, int]]:
    """Each integer register's candidate range (see the module docstring)."""
    init = initial_values(system)
    update, _ = register_updates(system)
    out = {}
    for v, f in update.items():
        if v.symbol_type().is_int_type() and v in init and init[v].is_int_constant():
            values = _constants(f) | {init[v].constant_value()}
            out[v] = (min(values), max(values))
    return out


def bound_registers(system: TransitionSystem, make_solver: Callable[[], Solver]) -> Ranged:
    """``system`` with its registers' inductive ranges assumed (see the module docstring);
    the system itself when none is found, or when it is a bounded problem or has guarded
    model elements."""
    if system.bounded is not None or system.elements:
        return Ranged(system, {})
    left = candidates(system)
    if not left:
        return Ranged(system, {})
    mgr = system.env.formula_manager
    nxt = system.next_map()

    def within(v: FNode, r: tuple[int, int]) -> FNode:
        return mgr.And(mgr.LE(mgr.Int(r[0]), v), mgr.LE(v, mgr.Int(r[1])))

    solver = Bounded(make_solver(), time.monotonic() + SECONDS)
    try:
        solver.add_all(system.assumptions)
        solver.add(system.trans)
        for _ in range(MAX_ROUNDS):
            if not left:
                break
            solver.push()
            solver.add_all(within(v, r) for v, r in left.items())
            outside = {v: mgr.Not(within(nxt[v], r)) for v, r in left.items()}
            solver.add(mgr.Or(list(outside.values())))
            broken = solver.check()
            nexts = solver.values([nxt[v] for v in left]) if broken else {}
            solver.pop()
            if not broken:
                break
            dropped = {v for v, (lo, hi) in left.items()
                       if not lo <= int(nexts[nxt[v]]) <= hi}  # type: ignore[call-overload]
            left = {v: r for v, r in left.items() if v not in dropped}
        else:
            left = {}
    except Exception:  # noqa: BLE001 - undecided: nothing is assumed
        left = {}
    finally:
        solver.close()
    if not left:
        return Ranged(system, {})
    facts = tuple(within(v, r) for v, r in left.items())
    return Ranged(system.evolve(assumptions=system.assumptions + facts), dict(left))
