"""The clocks of lazy branches and activations in the SMT translation (:mod:`.lazy` and
:mod:`.activation` say what they mean): where a clock ticks, its first tick, the memories of
``pre`` on a clock, which keep the value of the last tick, and restarts.

A node instance steps at every step, or, when it is called in a lazy branch or activated, on
the clock of its call site (its ``active``); the clocks of its own lazy branches tick where
their parent does and their condition holds.  An instance called with ``restart every r``
starts over where it steps and ``r`` holds, and so does every instance below it (its
``reset``): its clocks' first ticks are counted again from there, and an unguarded ``pre`` at
such a first tick is again an arbitrary value (an input named ``<pre>%init``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.clocks import Clock, clock_of
from kinduct.frontends.lucent.core.types import BOOL, leaves

if TYPE_CHECKING:
    from kinduct.frontends.lucent.smt.inst_api import Inst

class ClockTerms:
    """The terms of the clocks of one node instance ``inst``; ``site``: its caller's instance
    and the clock of the call (None for the main node); ``restart``: the call's restart
    condition, as the caller evaluates it (None: none)."""

    def __init__(self, inst: Inst, site: tuple[Inst, Clock | None] | None,
                 restart: FNode | None = None) -> None:
        self.inst = inst
        self.site = site
        #: Where the instance steps: None at every step, else where its call site's clock ticks.
        self.active: FNode | None = site[0].clocks.active_of(site[1]) if site else None
        self.restart = restart
        mgr = inst.mgr
        own = None if restart is None else restart if self.active is None else \
            mgr.And(self.active, restart)
        above = site[0].clocks.reset if site else None
        #: Where the instance starts over (its own restart, or an instance above it): None when
        #: it never does.
        self.reset: FNode | None = above if own is None else own if above is None else \
            mgr.Or(above, own)
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
        """True at the first step where ``clock`` ticks (None: where the instance steps) since
        the instance last started; where it does not tick, whether it has not ticked yet."""
        inst = self.inst
        tr, mgr = inst.tr, inst.mgr
        if clock is None and self.restart is None:
            return self.site[0].clocks.first_of(self.site[1]) if self.site else tr.first
        key = naming.SELF_CLOCK if clock is None else clock.name
        got = self._first.get(key)
        if got is None:
            mem = tr.state(naming.seen(inst.prefix, key), BOOL)
            seen = mgr.And(mgr.Not(tr.first), mem)  # ticked at an earlier step
            if self.reset is not None:  # and not started over since
                seen = mgr.And(seen, mgr.Not(self.reset))
            ticks = self.active_of(clock)
            tr.b.update(mem, mgr.Or(seen, mgr.TRUE() if ticks is None else ticks))
            got = self._first[key] = mgr.Not(seen)
        return got

    def memory(self, name: str, t: Any, arg: Any, active: FNode | None) -> Any:
        """A memory named ``name`` of type ``t`` that takes the value of ``arg`` where
        ``active`` holds (None: at every step) and keeps it elsewhere: ``pre arg`` on that
        clock (its value before the first tick is arbitrary)."""
        inst = self.inst
        var = inst.fresh(name, t)
        for v, a in zip(leaves(var), leaves(arg), strict=True):
            inst.tr.b.update(v, a if active is None else inst.mgr.Ite(active, a, v))
        return var

    def pre(self, e: A.Unop, arg: Any) -> Any:
        """``pre arg`` (the checked ``e``) on its clock, in an instance on a clock or one that
        may start over: its own memory; an unguarded one at a first tick reads an input
        instead where the instance may have started over."""
        clock = clock_of(e)
        kept = self.memory(e.uid, e.ty, arg, self.active_of(clock))
        if self.reset is None or getattr(e, "guarded", False):
            return kept
        inst = self.inst
        fresh = inst.tr.input(naming.initial(inst.prefix, e.uid), e.ty)
        return inst.ite(self.first_of(clock), fresh, kept)
