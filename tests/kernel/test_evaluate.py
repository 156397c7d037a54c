"""The direct evaluator agrees with PySMT's substitution and simplification, on random formulas
over Booleans, integers and reals; it answers UNDECIDED only where it cannot compute."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysmt.environment import Environment
from pysmt.typing import BOOL, INT, REAL, FunctionType

from kinduct.kernel.evaluate import UNDECIDED, Evaluation, evaluate

# PySMT warns when it builds a division by a zero constant; dividing by zero is part of the test.
pytestmark = pytest.mark.filterwarnings("ignore:Warning. Division by 0")

ENV = Environment()
MGR = ENV.formula_manager
B = [MGR.Symbol(f"b{i}", BOOL) for i in range(2)]
I = [MGR.Symbol(f"i{i}", INT) for i in range(2)]
R = [MGR.Symbol(f"r{i}", REAL) for i in range(2)]


def _ints():
    leaves = st.one_of(st.sampled_from(I), st.integers(-3, 3).map(MGR.Int))
    return st.recursive(leaves, lambda sub: st.one_of(
        st.tuples(sub, sub).map(lambda a: MGR.Plus(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Minus(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Times(*a))), max_leaves=6)


def _reals():
    leaves = st.one_of(st.sampled_from(R), st.fractions(-2, 2, max_denominator=3).map(MGR.Real),
                       _ints().map(MGR.ToReal))
    return st.recursive(leaves, lambda sub: st.one_of(
        st.tuples(sub, sub).map(lambda a: MGR.Plus(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Times(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Div(*a))), max_leaves=6)


def _bools():
    atoms = st.one_of(
        st.sampled_from(B), st.booleans().map(MGR.Bool),
        st.tuples(_ints(), _ints()).map(lambda a: MGR.LE(*a)),
        st.tuples(_ints(), _ints()).map(lambda a: MGR.Equals(*a)),
        st.tuples(_reals(), _reals()).map(lambda a: MGR.LT(*a)))
    return st.recursive(atoms, lambda sub: st.one_of(
        sub.map(MGR.Not),
        st.tuples(sub, sub).map(lambda a: MGR.And(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Or(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Implies(*a)),
        st.tuples(sub, sub).map(lambda a: MGR.Iff(*a)),
        st.tuples(sub, _ints(), _ints()).map(lambda a: MGR.LE(MGR.Ite(*a), a[1]))),
        max_leaves=8)


VALUES = st.fixed_dictionaries({
    **{b: st.booleans() for b in B}, **{i: st.integers(-4, 4) for i in I},
    **{r: st.fractions(-3, 3, max_denominator=4) for r in R}})


def _substituted(formula, values):
    consts = {}
    for var, value in values.items():
        if var.symbol_type().is_bool_type():
            consts[var] = MGR.Bool(value)
        elif var.symbol_type().is_int_type():
            consts[var] = MGR.Int(value)
        else:
            consts[var] = MGR.Real(value)
    return ENV.simplifier.simplify(ENV.substituter.substitute(formula, consts))


@settings(max_examples=80, deadline=None)
@given(_bools(), VALUES)
def test_agrees_with_substitution(formula, values):
    mine = evaluate(formula, values)
    theirs = _substituted(formula, values)
    if mine is UNDECIDED:  # only a division by zero leaves a term without a value
        assert not theirs.is_bool_constant() or "/" in formula.serialize()
    else:
        assert theirs.is_bool_constant(), str(formula)
        assert mine == theirs.constant_value(), str(formula)


def test_missing_values_and_unsupported_terms_are_undecided():
    f = MGR.Function(MGR.Symbol("f", FunctionType(INT, [INT])), [I[0]])
    assert evaluate(MGR.Equals(f, MGR.Int(1)), {I[0]: 1}) is UNDECIDED
    assert evaluate(MGR.LE(I[0], I[1]), {I[0]: 1}) is UNDECIDED
    assert evaluate(MGR.Equals(MGR.Div(R[0], R[1]), R[0]), {R[0]: Fraction(1), R[1]: 0}) \
        is UNDECIDED


def test_short_circuits_around_an_undecided_operand():
    undecided = MGR.Equals(MGR.Div(R[0], R[1]), R[0])
    values = {R[0]: Fraction(1), R[1]: Fraction(0), B[0]: False}
    assert evaluate(MGR.And(B[0], undecided), values) is False
    assert evaluate(MGR.Or(MGR.Not(B[0]), undecided), values) is True
    assert evaluate(MGR.Ite(B[0], undecided, MGR.Bool(True)), values) is True


def test_array_values_with_one_default_are_compared_element_wise():
    # PySMT's simplifier equates two array values that share their default
    from pysmt.typing import ArrayType

    from kinduct.kernel.evaluate import holds
    a, b = (MGR.Symbol(n, ArrayType(INT, BOOL)) for n in ("a", "b"))
    values = {a: 'array:{"d":false,"e":[[1,true],[2,true]]}', b: 'array:{"d":false,"e":[[3,true]]}'}
    assert holds(ENV, MGR.Equals(a, b), values) is False
    assert holds(ENV, MGR.Not(MGR.Equals(a, b)), values) is True
    assert holds(ENV, MGR.Equals(a, a), values) is True


@settings(max_examples=60, deadline=None)
@given(st.lists(_bools(), min_size=1, max_size=5), VALUES, st.sets(st.sampled_from([*B, *I, *R])))
def test_an_evaluation_with_growing_values_gives_evaluates_answers(formulas, values, late):
    """Asked first with some values missing, then again once they are added, one
    :class:`Evaluation` gives what :func:`evaluate` gives each time."""
    early = {v: x for v, x in values.items() if v not in late}
    ev = Evaluation(dict(early))
    for f in formulas:
        assert ev(f) == evaluate(f, early) or (ev(f) is UNDECIDED and evaluate(f, early) is UNDECIDED)
    ev.values.update(values)
    for f in formulas:
        mine, theirs = ev(f), evaluate(f, values)
        assert mine is theirs if theirs is UNDECIDED else mine == theirs, str(f)
