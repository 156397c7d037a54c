"""Small transition systems the kernel's runner tests share."""

from __future__ import annotations

from pysmt.environment import Environment
from pysmt.typing import INT

from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem


def counter() -> TransitionSystem:
    """x = 0, then x + 1: ``x >= 0`` holds."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("counter", env=env)
    x, nxt = b.state("x", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_property(Property("P", mgr.GE(x, mgr.Int(0))))
    return b.build()


def deep_counter(depth: int) -> TransitionSystem:
    """x = 0, then x + 1: ``x < depth`` fails first at step ``depth``."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("deep", env=env)
    x, nxt = b.state("x", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_property(Property("P", mgr.LT(x, mgr.Int(depth))))
    return b.build()


def wide_counter(excluded: int) -> TransitionSystem:
    """:func:`counter` whose initial state also excludes the values 1..``excluded`` (one
    conjunct each: about three formula nodes per value); ``x >= 0`` holds."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("wide", env=env)
    x, nxt = b.state("x", INT)
    b.add_init(mgr.And([mgr.Equals(x, mgr.Int(0)),
                        *(mgr.Not(mgr.Equals(x, mgr.Int(c))) for c in range(1, excluded + 1))]))
    b.add_trans(mgr.Equals(nxt, mgr.Plus(x, mgr.Int(1))))
    b.add_property(Property("P", mgr.GE(x, mgr.Int(0))))
    return b.build()
