"""The solver interface on both SMT backends: incremental use, assumptions, cores, batch models."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pysmt.environment import Environment
from pysmt.typing import INT, REAL

from kinduct.kernel import registry
from kinduct.kernel.backend import constant

SOLVERS = ["z3", "cvc5"]


@pytest.fixture(params=SOLVERS)
def setup(request):
    env = Environment()
    solver = registry.backend(request.param).solver(env)
    yield env, env.formula_manager, solver
    solver.close()


def test_models_are_read_in_one_batch_with_python_values(setup):
    env, mgr, solver = setup
    x, r, b = mgr.Symbol("x", INT), mgr.Symbol("r", REAL), mgr.Symbol("b")
    solver.add(mgr.And(mgr.Equals(x, mgr.Int(-3)), mgr.Equals(mgr.Times(r, mgr.Real(2)), mgr.Real(1)), b))
    assert solver.check()
    values = solver.values([x, r, b])
    assert values == {x: -3, r: Fraction(1, 2), b: True}
    assert constant(mgr, x, values[x]) == mgr.Int(-3)


def test_unconstrained_symbols_get_completed_values(setup):
    env, mgr, solver = setup
    x, y = mgr.Symbol("x", INT), mgr.Symbol("y", INT)
    solver.add(mgr.GT(x, mgr.Int(0)))
    assert solver.check()
    assert isinstance(solver.values([y])[y], int)


def test_assumptions_and_unsat_core(setup):
    env, mgr, solver = setup
    x = mgr.Symbol("x", INT)
    a, b, c = mgr.Symbol("a"), mgr.Symbol("b"), mgr.Symbol("c")
    solver.add(mgr.Implies(a, mgr.GT(x, mgr.Int(5))))
    solver.add(mgr.Implies(b, mgr.LT(x, mgr.Int(3))))
    solver.add(mgr.Implies(c, mgr.Equals(x, mgr.Int(4))))
    assert solver.check([a, c]) is False
    core = solver.unsat_core()
    assert set(core) <= {a, c} and a in core and c in core
    assert solver.check([b]) is True
    assert solver.check([a, b, c]) is False
    assert set(solver.unsat_core()) < {a, b, c}


def test_non_literal_assumptions_are_proxied(setup):
    env, mgr, solver = setup
    x = mgr.Symbol("x", INT)
    gt = mgr.GT(x, mgr.Int(5))
    lt = mgr.LT(x, mgr.Int(3))
    assert solver.check([gt]) is True
    assert solver.check([gt, lt]) is False
    assert set(solver.unsat_core()) == {gt, lt}
    assert solver.check([lt]) is True  # the proxies do not constrain later checks


def test_push_pop_and_reset(setup):
    env, mgr, solver = setup
    x = mgr.Symbol("x", INT)
    solver.add(mgr.GT(x, mgr.Int(0)))
    solver.push()
    solver.add(mgr.LT(x, mgr.Int(0)))
    assert solver.check() is False
    solver.pop()
    assert solver.check() is True
    solver.add(mgr.LT(x, mgr.Int(0)))
    assert solver.check() is False
    solver.reset()
    assert solver.check([mgr.LT(x, mgr.Int(0))]) is True


@pytest.mark.parametrize("name", SOLVERS)
def test_a_time_limit_ends_a_hard_query_and_survives_a_reset(name):
    """``limit_time``: a query that needs more (x³ + y³ = z³ over positive integers, which no
    solver here settles) ends as ``SolverUnknown`` near the limit, also after ``reset``; None
    lifts it."""
    import time

    from pysmt.logics import QF_NIA

    from kinduct.kernel.backend import SolverUnknown

    env = Environment()
    mgr = env.formula_manager
    x, y, z = (mgr.Symbol(n, INT) for n in "xyz")
    positive = [mgr.GT(v, mgr.Int(0)) for v in (x, y, z)]
    fermat = mgr.Equals(mgr.Plus(mgr.Times(x, x, x), mgr.Times(y, y, y)), mgr.Times(z, z, z))
    solver = registry.backend(name).solver(env, QF_NIA)
    solver.limit_time(0.5)
    for _ in range(2):
        solver.add(mgr.And(*positive, fermat))
        start = time.monotonic()
        with pytest.raises(SolverUnknown):
            solver.check()
        assert time.monotonic() - start < 10
        solver.reset()
    solver.limit_time(None)
    solver.add(positive[0])
    assert solver.check()
    solver.close()
