"""The base case that bmc and kind share: one trace per falsified property, each violating it,
and queries that go to a solver afresh (``Solver.check_afresh``) answering as incremental ones."""

from __future__ import annotations

import pytest
from pysmt.environment import Environment
from pysmt.typing import INT

from kinduct.kernel import registry
from kinduct.kernel import system as system_module
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer
from kinduct.plugins.engines import common
from tests.plugins.engines.systems import context, decide, twin_counters, wrapping_counter


def apart() -> TransitionSystem:
    """An input ``x`` and three properties: ``x != 1`` and ``x != 2`` fail at step 0 on no
    common input, ``x < 5`` fails with many inputs; ``x + 1 > x`` holds."""
    b = SystemBuilder("apart")
    m = b.mgr
    x = b.input("x", INT)
    b.add_property(Property("not_one", m.Not(m.Equals(x, m.Int(1)))))
    b.add_property(Property("not_two", m.Not(m.Equals(x, m.Int(2)))))
    b.add_property(Property("small", m.LT(x, m.Int(5))))
    b.add_property(Property("grows", m.GT(m.Plus(x, m.Int(1)), x)))
    return b.build()


#: What each property of :func:`apart` says of ``x``, computed here in Python.
APART = {"not_one": lambda x: x != 1, "not_two": lambda x: x != 2, "small": lambda x: x < 5,
         "grows": lambda x: x + 1 > x}


@pytest.mark.parametrize("afresh", [False, True])
@pytest.mark.parametrize("engine", ["bmc", "kind"])
def test_each_falsified_property_has_a_trace_that_violates_it(monkeypatch, afresh, engine):
    if afresh:  # every query past the first tried incrementally for no time, then afresh
        monkeypatch.setattr(common, "AFRESH_AFTER", 0.0)
    system = apart()
    verdicts = decide(engine, system, context(system, max_k=2))
    for name in ("not_one", "not_two", "small"):
        v = verdicts[name]
        assert v.answer is Answer.FALSIFIABLE and v.k == 0, v
        assert len(v.trace) == 1
        assert not APART[name](v.trace.steps[0]["x"])
    assert verdicts["grows"].answer is not Answer.FALSIFIABLE


@pytest.mark.parametrize("system,k", [(twin_counters(3, broken=True), 3),
                                      (wrapping_counter(20, 6), 6)])
def test_afresh_queries_find_the_shortest_counterexample(monkeypatch, system, k):
    found = {}
    for afresh in ("never", "after a try", "at once"):  # at once: as on a large system
        monkeypatch.setattr(common, "AFRESH_AFTER", 60.0 if afresh == "never" else 0.0)
        monkeypatch.setattr(system_module, "LARGE_STATE_VARS", 0 if afresh == "at once" else 10**9)
        (verdict,) = decide("bmc", system, context(system, max_k=10)).values()
        assert verdict.answer is Answer.FALSIFIABLE
        found[afresh] = verdict.k
    assert found == {"never": k, "after a try": k, "at once": k}


@pytest.mark.parametrize("name", ["z3", "cvc5"])
def test_a_check_afresh_answers_as_a_check_and_keeps_the_assertions(name):
    env = Environment()
    m = env.formula_manager
    solver = registry.backend(name).solver(env)
    ys = [m.Symbol(f"y{i}", INT) for i in range(51)]
    for prev, cur in zip(ys, ys[1:], strict=False):  # definitions a fresh solver solves away
        solver.add(m.Equals(cur, m.Plus(prev, m.Int(1))))
    for after in (None, 0.0, 30.0):
        assert solver.check_afresh([m.Equals(ys[50], m.Int(60))], after) is True
        values = solver.values(ys)
        assert [values[y] for y in ys] == list(range(10, 61))
        assert solver.check_afresh([m.Equals(ys[0], m.Int(3)), m.Equals(ys[50], m.Int(3))],
                                   after) is False
        assert solver.unsat_core()  # a subset of the assumptions, not empty
    # the assertions are the incremental solver's still; no assumption stayed behind
    assert solver.check([m.Equals(ys[0], m.Int(-7))]) is True
    assert solver.values([ys[50]])[ys[50]] == 43
    solver.close()
