"""Counters saturated: a sound and complete simplification of a transition system.

A *counter* here is an integer register (``init`` has a conjunct ``v = c0``, ``trans`` exactly
one conjunct ``next(v) = v + e``, as :mod:`kinduct.kernel.registers` finds them) whose
increment ``e`` is never negative (:func:`bounds`: built from integer constants, ``+`` and
``ite`` with a lower bound of at least 0), and which is read nowhere else except as a summand
of a comparison (``<``, ``<=``, ``=``) whose other summands and other side are bounded terms:
``v + t ⋈ u`` with ``t`` in ``[t_lo, t_hi]`` and ``u`` in ``[u_lo, u_hi]`` (either side).  Such
a counter only grows, and every comparison that reads it has the same value for every
``v >= u_hi - t_lo + 1`` (then ``v + t > u``).  So with ``C`` the largest of these thresholds
and ``c0``, replacing the update by ``next(v) = min(v + e, C)`` changes no comparison, no other
variable and no verdict: the reduced system's ``v`` is the original's ``min(v, C)`` on every
path (by induction: ``min(min(v, C) + e, C) = min(v + e, C)`` for ``e >= 0``), every formula
that reads ``v`` reads it through a comparison with the same value, so both systems have the
same paths on the other variables (the same verdicts, the same counterexamples up to the
capped counters' values, which the acceptors' replay does not read), and an inductive
invariant ``I`` of the reduced system gives ``I[v := min(v, C)]`` for the original.  The
counter then stays within ``c0`` and ``C`` (:mod:`kinduct.kernel.ranges` proves and assumes
it): the state space is finite where the counter was the only unbounded part.

Used on the product of two acceptors (:func:`kinduct.kernel.acceptor.language_query`): C-RASP's
counts ``#(x)`` that are only compared with constants (``#(AB) > 0``, ``#[0,1]('a') = 2``,
``N <= 3``) become counters up to 1-4, and an equivalence that needed an invariant over
unbounded counts becomes a finite-state question that ``kind`` proves at a small depth.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs
from pysmt.fnode import FNode

from kinduct.kernel.registers import initial_values, register_updates
from kinduct.kernel.system import Structure, TransitionSystem


@attrs.frozen
class Saturated:
    """The reduced ``system`` and each saturated counter's cap (its value stays within its
    initial value and the cap)."""

    system: TransitionSystem
    caps: Mapping[FNode, int]


def bounds(term: FNode) -> tuple[int, int] | None:
    """Integer bounds of ``term`` built from integer constants, ``+`` and ``ite`` alone
    (None when it has any other part, e.g. a variable)."""
    if term.is_int_constant():
        value = term.constant_value()
        return value, value
    if term.is_ite():
        a, b = bounds(term.arg(1)), bounds(term.arg(2))
        if a is None or b is None:
            return None
        return min(a[0], b[0]), max(a[1], b[1])
    if term.is_plus():
        lo = hi = 0
        for arg in term.args():
            part = bounds(arg)
            if part is None:
                return None
            lo, hi = lo + part[0], hi + part[1]
        return lo, hi
    return None


def _summands(term: FNode) -> list[FNode]:
    if term.is_plus():
        return [s for arg in term.args() for s in _summands(arg)]
    return [term]


class _Reads:
    """Where the candidate counters are read: each one's largest threshold, and the counters
    read elsewhere than as a summand of a bounded comparison (``spoiled``)."""

    def __init__(self, candidates: set[FNode]) -> None:
        self.candidates = candidates
        self.threshold: dict[FNode, int] = {}
        self.spoiled: set[FNode] = set()
        self._seen: set[FNode] = set()

    def _comparison(self, node: FNode) -> bool:
        """Record ``node`` if it is a comparison reading one counter as a summand; whether it
        was (its other parts are then walked as ordinary terms)."""
        if not (node.is_lt() or node.is_le() or node.is_equals()):
            return False
        left, right = node.arg(0), node.arg(1)
        if not left.get_type().is_int_type():
            return False
        for side, other in ((left, right), (right, left)):
            parts = _summands(side)
            found = [p for p in parts if p in self.candidates]
            if len(found) != 1:
                continue
            rest = [p for p in parts if p is not found[0]]
            if len(rest) != len(parts) - 1:  # the counter twice
                continue
            t = [bounds(p) for p in rest]
            u = bounds(other)
            if u is None or any(b is None for b in t):
                continue
            t_lo = sum(b[0] for b in t)  # type: ignore[index]
            v = found[0]
            self.threshold[v] = max(self.threshold.get(v, u[1] - t_lo + 1), u[1] - t_lo + 1)
            for p in [*rest, other]:
                self.walk(p)
            return True
        return False

    def walk(self, node: FNode) -> None:
        stack = [node]
        while stack:
            n = stack.pop()
            if n in self._seen:
                continue
            self._seen.add(n)
            if n in self.candidates:
                self.spoiled.add(n)
            elif not self._comparison(n):
                stack.extend(n.args())


def saturate_counters(system: TransitionSystem) -> Saturated:
    """``system`` with its counters saturated (see the module docstring); the system itself
    when it has none, or when it is a bounded problem or has guarded model elements."""
    if system.bounded is not None or system.elements:
        return Saturated(system, {})
    init = initial_values(system)
    update, trans_parts = register_updates(system)
    mgr = system.env.formula_manager
    increments: dict[FNode, list[FNode]] = {}
    for v, f in update.items():
        if not v.symbol_type().is_int_type() or v not in init or not f.is_plus():
            continue
        parts = _summands(f)
        rest = [p for p in parts if p is not v]
        increment = bounds(mgr.Plus(rest)) if rest else (0, 0)
        if len(rest) == len(parts) - 1 and increment is not None and increment[0] >= 0:
            increments[v] = rest
    if not increments:
        return Saturated(system, {})
    nxt = system.next_map()
    own = {nxt[v]: v for v in increments}  # each counter's update conjunct, by its next copy
    reads = _Reads(set(increments))
    for part in trans_parts:
        target = _defined(part, own)
        if target is None:
            reads.walk(part)
        else:
            for p in increments[target]:
                reads.walk(p)
    for part in _others(system, init, increments):
        reads.walk(part)
    caps = {v: max(reads.threshold.get(v, 0), init[v].constant_value())
            for v in increments if v not in reads.spoiled}
    if not caps:
        return Saturated(system, {})
    new_update = {}
    for v, cap in caps.items():
        grown = mgr.Plus([v, *increments[v]])
        new_update[v] = mgr.Ite(mgr.LE(mgr.Int(cap), grown), mgr.Int(cap), grown)
    trans = []
    for part in trans_parts:
        target = _defined(part, own)
        trans.append(mgr.Equals(nxt[target], new_update[target])
                     if target is not None and target in caps else part)
    updates = {r: new_update.get(r, t) for r, t in system.structure.updates.items()}
    reduced = system.evolve(trans=mgr.And(trans),
                            structure=Structure(updates, system.structure.first))
    return Saturated(reduced, caps)


def _defined(part: FNode, own: Mapping[FNode, FNode]) -> FNode | None:
    """The counter whose update conjunct ``part`` is (``next(v) = ...``), else None."""
    if part.is_equals():
        for n in (part.arg(0), part.arg(1)):
            if n in own:
                return own[n]
    return None


def _others(system: TransitionSystem, init: Mapping[FNode, FNode],
            counters: Mapping[FNode, object]) -> Iterable[FNode]:
    """Every formula other than ``trans`` that may read a counter: ``init`` (but a counter's
    own initial value), the assumptions, the properties and the frontend's register updates."""
    from kinduct.kernel.system import conjuncts

    mgr = system.env.formula_manager
    fixed = {mgr.Equals(v, init[v]) for v in counters} | {mgr.Equals(init[v], v) for v in counters}
    yield from (c for c in conjuncts(system.init) if c not in fixed)
    yield from system.assumptions
    yield from (p.formula for p in system.properties)
    for register, term in system.structure.updates.items():
        if register not in counters:  # a counter's own update is its trans conjunct's term
            yield term
