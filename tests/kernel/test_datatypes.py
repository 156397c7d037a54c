"""Native datatypes over PySMT (:mod:`kinduct.kernel.datatypes`): declaration, the solvers'
exact theory, model values as trees, trace text, constants and replay evaluation."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pysmt.environment import Environment

from kinduct.kernel import datatypes as D
from kinduct.kernel.backend import constant
from kinduct.kernel.evaluate import UNDECIDED, evaluate, holds
from kinduct.kernel.registry import backends


def _msg(env: Environment) -> D.Sort:
    tm = env.type_manager
    msg = D.sort_type(env, "Msg")
    (sort,) = D.declare(env, [D.Datatype("Msg", (
        D.Constructor("Atom", (("n", tm.INT()), ("r", tm.REAL()))),
        D.Constructor("Enc", (("a", msg), ("b", msg))),
        D.Constructor("Nil")))])
    return sort


def _solver(env: Environment, name: str):
    backend = backends().get(name)
    if backend is None or not backend.available():
        pytest.skip(f"{name} not available")
    return backend.solver(env)


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_theory_is_exact_and_models_are_trees(solver):
    env = Environment()
    mgr = env.formula_manager
    s = _msg(env)
    m, k = mgr.Symbol("m", s.type), mgr.Symbol("k", s.type)
    atom = D.construct(env, s, 0, [mgr.Int(3), mgr.Real(Fraction(1, 2))])
    nil = D.construct(env, s, 2, [])
    sol = _solver(env, solver)
    sol.add(mgr.Equals(m, D.construct(env, s, 1, [m, k])))  # acyclic: no finite m
    assert sol.check() is False
    sol.reset()
    sol.add(mgr.Equals(m, D.construct(env, s, 1, [atom, nil])))
    sol.add(D.test(env, s, 1, k))
    sol.add(mgr.Equals(D.select(env, s, 1, 0, k), D.select(env, s, 1, 1, m)))
    assert sol.check() is True
    values = sol.values([m, k])
    assert D.from_text(values[m]) == D.Tree("Enc", (D.Tree("Atom", (3, Fraction(1, 2))),
                                                    D.Tree("Nil")))
    assert D.from_text(values[k]).ctor == "Enc" and D.from_text(values[k]).args[0] == \
        D.Tree("Nil")
    consts = sol.constants([m])
    assert consts[m] == D.construct(env, s, 1, [atom, nil])


def test_text_round_trip_and_constants():
    env = Environment()
    mgr = env.formula_manager
    s = _msg(env)
    tree = D.Tree("Enc", (D.Tree("Nil"), D.Tree("Atom", (-4, Fraction(7, 3)))))
    text = D.to_text(tree)
    assert text.startswith(D.PREFIX) and D.from_text(text) == tree
    m = mgr.Symbol("m", s.type)
    assert constant(mgr, m, text) == D.construct(env, s, 1, [
        D.construct(env, s, 2, []),
        D.construct(env, s, 0, [mgr.Int(-4), mgr.Real(Fraction(7, 3))])])
    with pytest.raises(ValueError):
        D.from_text("array:{}")


def test_replay_evaluates_constructors_testers_and_selectors():
    env = Environment()
    mgr = env.formula_manager
    s = _msg(env)
    m = mgr.Symbol("m", s.type)
    value = {m: D.to_text(D.Tree("Enc", (D.Tree("Nil"), D.Tree("Nil"))))}
    nil = D.construct(env, s, 2, [])
    f = mgr.And(D.test(env, s, 1, m), mgr.Equals(D.select(env, s, 1, 0, m), nil),
                mgr.Equals(m, D.construct(env, s, 1, [nil, nil])))
    assert holds(env, f, value) is True
    assert holds(env, mgr.Not(mgr.Equals(m, D.construct(env, s, 1, [nil, m]))), value) is True
    # a selector of another constructor has no value here: the solver decides it
    wrong = mgr.GE(D.select(env, s, 0, 0, m), mgr.Int(0))
    assert evaluate(wrong, {m: D.from_text(value[m])}, env) is UNDECIDED
    assert holds(env, mgr.Or(wrong, mgr.Not(wrong)), value) is True


def test_a_sort_is_declared_once_per_environment():
    env = Environment()
    _msg(env)
    with pytest.raises(ValueError):
        _msg(env)
    assert D.find(Environment()) is None
