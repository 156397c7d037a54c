"""Replaying a trace on a system with an uninterpreted function (``TransitionSystem.
rigid_symbols``): the trace holds no value of the function, so it replays exactly when one
interpretation agrees with every step."""

from __future__ import annotations

from pysmt.environment import Environment
from pysmt.typing import INT

from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Trace


def applied(on_f: bool = False) -> TransitionSystem:
    """An input ``x`` and ``y = f(x)`` for an uninterpreted ``f``; ``y < 5`` is the property
    (``on_f``: ``f(x) < 5``)."""
    env = Environment()
    mgr = env.formula_manager
    types = env.type_manager
    b = SystemBuilder("applied", env=env)
    x = b.input("x", INT)
    y = b.input("y", INT)
    f = mgr.Symbol("f", types.FunctionType(INT, [INT]))
    b.add_assumption(mgr.Equals(y, mgr.Function(f, [x])))
    b.add_property(Property("small", mgr.LT(mgr.Function(f, [x]) if on_f else y, mgr.Int(5))))
    return b.build()


def test_rigid_symbols_are_the_uninterpreted_function():
    system = applied()
    assert [s.symbol_name() for s in system.rigid_symbols()] == ["f"]


def test_a_trace_some_interpretation_agrees_with_replays():
    system = applied()
    trace = Trace.of([{"x": 1, "y": 2}, {"x": 3, "y": 7}])
    assert replay_trace(system, trace, system.property("small")) is None


def test_a_trace_that_reads_two_values_for_one_argument_does_not_replay():
    system = applied()
    trace = Trace.of([{"x": 1, "y": 2}, {"x": 1, "y": 7}])
    problem = replay_trace(system, trace, system.property("small"))
    assert problem is not None and "interpretation" in problem


def test_the_violation_must_hold_in_the_same_interpretation():
    system = applied(on_f=True)
    prop = system.property("small")
    # f(1) >= 5 violates the property, but f(1) = 2 was read before
    assert replay_trace(system, Trace.of([{"x": 1, "y": 2}, {"x": 1, "y": 2}]), prop) is not None
    assert replay_trace(system, Trace.of([{"x": 1, "y": 2}, {"x": 1, "y": 9}]), prop) is not None
    assert replay_trace(system, Trace.of([{"x": 1, "y": 2}, {"x": 3, "y": 9}]), prop) is None
