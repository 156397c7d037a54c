"""Tiny transition systems with known invariants, and an in-process engine driver."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pysmt.typing import BOOL, INT

from kinduct.kernel import registry
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Verdict


def wrapping_counter(limit: int = 10, bad: int = 15) -> TransitionSystem:
    """``x`` counts 0..limit and wraps to 0; ``x != bad`` holds only because ``x <= limit``."""
    b = SystemBuilder("counter")
    m = b.mgr
    x, xn = b.state("x", INT)
    b.add_init(m.Equals(x, m.Int(0)))
    b.add_trans(m.Equals(xn, m.Ite(m.Equals(x, m.Int(limit)), m.Int(0), m.Plus(x, m.Int(1)))))
    b.add_property(Property("not_bad", m.Not(m.Equals(x, m.Int(bad)))))
    return b.build()


def twin_counters(target: int = 7, broken: bool = False) -> TransitionSystem:
    """Two counters stepped together by an input; ``x = target -> y = target`` needs ``x = y``
    (not k-inductive: the states with ``x = y + 1`` may stutter forever)."""
    b = SystemBuilder("twins")
    m = b.mgr
    x, xn = b.state("x", INT)
    y, yn = b.state("y", INT)
    go = b.input("go", BOOL)
    b.add_init(m.And(m.Equals(x, m.Int(0)), m.Equals(y, m.Int(1 if broken else 0))))
    b.add_trans(m.Equals(xn, m.Ite(go, m.Plus(x, m.Int(1)), x)))
    b.add_trans(m.Equals(yn, m.Ite(go, m.Plus(y, m.Int(1)), y)))
    b.add_property(Property("same", m.Implies(m.Equals(x, m.Int(target)),
                                              m.Equals(y, m.Int(target)))))
    return b.build()


def context(system: TransitionSystem, solver: str = "z3", max_k: int | None = None,
            timeout: float = 60.0, inbox: Sequence[str] = (), outbox: list | None = None,
            options: object = None) -> EngineContext:
    """An engine context for a test; ``options`` is the engine's ``Options`` (default: its
    defaults, filled in by :func:`decide`)."""
    backend = registry.backend(solver)
    pending = list(inbox)

    def poll() -> list[str]:
        got = list(pending)
        pending.clear()
        return got

    return EngineContext(solver_name=solver, make_solver=lambda: backend.solver(system.env),
                         max_k=max_k, deadline=time.monotonic() + timeout, options=options,
                         publish_invariants=(outbox.extend if outbox is not None else lambda _lemmas: None),
                         poll_invariants=poll)


def decide(engine: str, system: TransitionSystem, ctx: EngineContext) -> dict[str, Verdict]:
    """Run one engine in this process; the last verdict per property."""
    out: dict[str, Verdict] = {}
    eng = registry.engine(engine)
    if ctx.options is None:
        ctx.options = eng.Options()
    for v in eng.check(system, list(system.properties), ctx):
        out[v.property] = v
    return out
