"""The clocks of lazy branches in the SMT translation (:mod:`.lazy` says what they mean): where
a clock ticks, its first tick, and the memories of ``pre`` on a clock, which keep the value of
the last tick.

A node instance steps at every step, or, when it is called in a lazy branch, on the clock of
its call site (its ``active``); the clocks of its own lazy branches tick where their parent
does and their condition holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode

from kinduct.frontends.lucent.lazy import Clock
from kinduct.frontends.lucent.types import BOOL, leaves

if TYPE_CHECKING:
    from kinduct.frontends.lucent.translate import _Inst


class ClockTerms:
    """The terms of the clocks of one node instance ``inst``; ``site``: its caller's instance
    and the clock of the call (None for the main node)."""

    def __init__(self, inst: _Inst, site: tuple[_Inst, Clock | None] | None) -> None:
        self.inst = inst
        self.site = site
        #: Where the instance steps: None at every step, else where its call site's clock ticks.
        self.active: FNode | None = site[0].clocks.active_of(site[1]) if site else None
        self._active: dict[str, FNode] = {}
        self._first: dict[str, FNode] = {}

    def active_of(self, clock: Clock | None) -> FNode | None:
        """Where the lazy branch of ``clock`` is selected (None: at every step); for None,
        where the instance steps."""
        if clock is None:
            return self.active
        got = self._active.get(clock.name)
        if got is None:
            mgr = self.inst.mgr
            c = self.inst.expr(clock.cond)
            lit = c if clock.positive else mgr.Not(c)
            parent = self.active_of(clock.parent)
            got = self._active[clock.name] = lit if parent is None else mgr.And(parent, lit)
        return got

    def first_of(self, clock: Clock | None) -> FNode:
        """True at the first step where ``clock`` ticks (None: where the instance steps)."""
        inst = self.inst
        tr, mgr = inst.tr, inst.mgr
        if clock is None:
            return self.site[0].clocks.first_of(self.site[1]) if self.site else tr.first
        got = self._first.get(clock.name)
        if got is None:
            mem = tr.state(f"{inst.prefix}%seen.{clock.name}", BOOL)
            seen = mgr.And(mgr.Not(tr.first), mem)  # ticked at an earlier step
            tr.b.update(mem, mgr.Or(seen, self.active_of(clock)))
            got = self._first[clock.name] = mgr.Not(seen)
        return got

    def memory(self, name: str, t: Any, arg: Any, active: FNode) -> Any:
        """A memory named ``name`` of type ``t`` that takes the value of ``arg`` where
        ``active`` holds and keeps it elsewhere: ``pre arg`` on that clock (its value before
        the first tick is arbitrary)."""
        inst = self.inst
        var = inst.fresh(name, t)
        for v, a in zip(leaves(var), leaves(arg), strict=True):
            inst.tr.b.update(v, inst.mgr.Ite(active, a, v))
        return var
