"""``kernel.diverse``: M diverse models of constraints over integer and Boolean variables.

Every model is checked against the constraints by plain Python arithmetic (not by the solver
that found it); models are pairwise distinct; another seed gives another set."""

from __future__ import annotations

import itertools

import pytest
from pysmt.environment import Environment
from pysmt.typing import BOOL, INT

from kinduct.kernel.diverse import Problem, Stop, Suggestion, diverse_models


@pytest.fixture
def env() -> Environment:
    return Environment()


def _path(env: Environment):
    """n >= 0, x1 <= n, x1 + x2 <= n, x1 + x2 + x3 > n, each x in -50..50, and b -> x1 > x2
    (a specification path of the I/O-testing paper, with a Boolean)."""
    m = env.formula_manager
    n, x1, x2, x3 = (m.Symbol(s, INT) for s in ("n", "x1", "x2", "x3"))
    b = m.Symbol("b", BOOL)
    cs = [m.GE(n, m.Int(0)), m.LE(x1, n), m.LE(m.Plus(x1, x2), n), m.GT(m.Plus(x1, x2, x3), n),
          m.Implies(b, m.GT(x1, x2))]
    cs += [m.And(m.GE(x, m.Int(-50)), m.LE(x, m.Int(50))) for x in (n, x1, x2, x3)]
    return Problem(tuple(cs), (n, x1, x2, x3, b))


def _holds(model) -> bool:
    n, x1, x2, x3, b = model
    return (n >= 0 and x1 <= n and x1 + x2 <= n and x1 + x2 + x3 > n and (not b or x1 > x2)
            and all(-50 <= x <= 50 for x in (n, x1, x2, x3)))


def test_models_satisfy_the_constraints_and_are_distinct(env):
    found = diverse_models(_path(env), 20, seed=1, env=env)
    assert found.stop is Stop.COUNT and len(found.models) == 20
    assert all(_holds(m) for m in found.models)
    assert len(set(found.models)) == 20
    assert all(isinstance(m[4], bool) and isinstance(m[0], int) for m in found.models)
    # diverse, not one corner: several values of n and both values of b
    assert len({m[0] for m in found.models}) >= 5 and {m[4] for m in found.models} == {False, True}


def test_seeds_differ_and_a_seed_repeats(env):
    a = diverse_models(_path(env), 8, seed=1, env=env).models
    b = diverse_models(_path(env), 8, seed=2, env=env).models
    assert a != b and set(a) != set(b)
    assert diverse_models(_path(env), 8, seed=1, env=env).models == a


def test_every_model_of_a_small_space_then_exhausted(env):
    m = env.formula_manager
    x, y = m.Symbol("x", INT), m.Symbol("y", INT)
    cs = (m.GE(x, m.Int(0)), m.LE(x, m.Int(3)), m.GE(y, m.Int(0)), m.LE(y, m.Int(3)),
          m.LT(x, y))
    found = diverse_models(Problem(cs, (x, y)), 100, seed=0, env=env)
    assert found.stop is Stop.EXHAUSTED
    assert sorted(found.models) == [(i, j) for i, j in itertools.product(range(4), repeat=2) if i < j]


def test_excluded_assignments_and_suggested_terms(env):
    m = env.formula_manager
    x, y = m.Symbol("x", INT), m.Symbol("y", INT)
    cs = (m.GE(x, m.Int(0)), m.LE(x, m.Int(2)), m.Equals(y, m.Times(m.Int(2), x)))
    excluded = ((0, 0), (2, 4))
    found = diverse_models(Problem(cs, (x, y), (Suggestion(m.Plus(x, y), range(10), 3),),
                                   exclude=excluded), 5, seed=4, env=env)
    assert found.models == ((1, 2),) and found.stop is Stop.EXHAUSTED
    with pytest.raises(ValueError):
        Suggestion(x, ())


def test_a_past_deadline_stops_before_searching(env):
    found = diverse_models(_path(env), 5, seed=0, env=env, deadline=0.0)
    assert found == found.__class__((), Stop.DEADLINE)
