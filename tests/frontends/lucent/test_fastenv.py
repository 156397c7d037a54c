"""The translation's PySMT environment (``smt/fastenv``) makes the terms PySMT's own makes:
built in the same order, every term has the same id, the same text and the same type, and an
ill-typed term is refused with PySMT's error."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysmt.environment import Environment
from pysmt.exceptions import PysmtTypeError
from pysmt.typing import BOOL, INT, REAL

from kinduct.frontends.lucent.smt.fastenv import FastEnvironment

#: A term as a recipe: ("int", n), ("var", name, type), or (operator, recipe, ...).
_INT_LEAVES = st.one_of(st.integers(-5, 5).map(lambda n: ("int", n)),
                        st.sampled_from(["x", "y"]).map(lambda v: ("var", v, "int")))


def _recipes() -> st.SearchStrategy:
    ints = st.recursive(_INT_LEAVES, lambda t: st.one_of(
        st.tuples(st.just("plus"), t, t), st.tuples(st.just("times"), t, st.just(("int", 3))),
        st.tuples(st.just("ite"), st.just(("var", "b", "bool")), t, t)), max_leaves=6)
    atoms = st.one_of(st.just(("var", "b", "bool")), st.tuples(st.just("le"), ints, ints),
                      st.tuples(st.just("eq"), ints, ints))
    return st.recursive(atoms, lambda t: st.one_of(
        st.tuples(st.just("and"), t, t), st.tuples(st.just("not"), t),
        st.tuples(st.just("iff"), t, t)), max_leaves=8)


def _build(mgr, recipe):
    kind = recipe[0]
    if kind == "int":
        return mgr.Int(recipe[1])
    if kind == "var":
        return mgr.Symbol(recipe[1], INT if recipe[2] == "int" else BOOL)
    args = [_build(mgr, r) for r in recipe[1:]]
    return {"plus": mgr.Plus, "times": mgr.Times, "ite": mgr.Ite, "le": mgr.LE,
            "eq": mgr.Equals, "and": mgr.And, "not": mgr.Not, "iff": mgr.Iff}[kind](*args)


@settings(max_examples=60, deadline=None)
@given(st.lists(_recipes(), min_size=1, max_size=4))
def test_same_terms_ids_and_types_as_pysmt(recipes) -> None:
    fast, plain = FastEnvironment(), Environment()
    for recipe in recipes:
        a, b = _build(fast.formula_manager, recipe), _build(plain.formula_manager, recipe)
        assert a.node_id() == b.node_id()
        assert a.serialize() == b.serialize()
        assert fast.stc.get_type(a) == plain.stc.get_type(b) == BOOL
    assert len(fast.formula_manager.formulae) == len(plain.formula_manager.formulae)


def test_ill_typed_term_is_refused_with_pysmts_error() -> None:
    for env in (FastEnvironment(), Environment()):
        mgr = env.formula_manager
        with pytest.raises(PysmtTypeError):
            mgr.Plus(mgr.Symbol("i", INT), mgr.Symbol("r", REAL))


def test_terms_of_another_environment_are_typed_by_pysmts_walk() -> None:
    env = FastEnvironment()
    mgr = env.formula_manager
    x = mgr.Symbol("x", INT)
    # an argument missing from the type memo: the new term is typed by PySMT's walk
    env.stc.memoization.pop(x)
    assert env.stc.get_type(mgr.LE(x, mgr.Int(1))) == BOOL


def test_a_symbol_is_made_once_and_refused_with_another_type_as_pysmt_does() -> None:
    from pysmt.exceptions import PysmtValueError

    for env in (FastEnvironment(), Environment()):
        mgr = env.formula_manager
        x = mgr.Symbol("x", INT)
        assert mgr.Symbol("x", INT) is x
        assert mgr.get_symbol("x") is x
        assert env.stc.get_type(x) == INT
        with pytest.raises(PysmtTypeError):
            mgr.Symbol("x", REAL)
        with pytest.raises(PysmtValueError):
            mgr.Symbol("", BOOL)


def test_every_operator_and_argument_types_typed_or_refused_as_pysmt_does() -> None:
    """Each operator the fast manager types itself (connectives, arithmetic, order, equality,
    conditionals), over every combination of argument sorts: the same type as PySMT's
    checker, or PySMT's error (the rules must never accept what PySMT refuses)."""
    import itertools

    import pysmt.operators as op
    from pysmt.typing import ArrayType, BVType

    sorts = [BOOL, INT, REAL, ArrayType(INT, INT), BVType(8)]
    ops = [op.AND, op.OR, op.NOT, op.IMPLIES, op.IFF, op.PLUS, op.MINUS, op.TIMES, op.LE,
           op.LT, op.EQUALS, op.ITE]
    envs = (FastEnvironment(), Environment())
    for node_type in ops:
        for arity in (1, 2, 3):
            for combo in itertools.product(range(len(sorts)), repeat=arity):
                outcomes = []
                for env in envs:
                    mgr = env.formula_manager
                    args = tuple(mgr.Symbol(f"v{i}_{k}", sorts[k]) for i, k in enumerate(combo))
                    try:
                        outcomes.append(str(env.stc.get_type(mgr.create_node(node_type, args))))
                    except (PysmtTypeError, AssertionError, IndexError) as e:
                        outcomes.append(type(e).__name__)
                assert outcomes[0] == outcomes[1], (node_type, combo, outcomes)


def test_equals_or_iff_makes_pysmts_node() -> None:
    for sort in (BOOL, INT, REAL):
        fast, plain = FastEnvironment(), Environment()
        a = fast.formula_manager.EqualsOrIff(fast.formula_manager.Symbol("p", sort),
                                             fast.formula_manager.Symbol("q", sort))
        b = plain.formula_manager.EqualsOrIff(plain.formula_manager.Symbol("p", sort),
                                              plain.formula_manager.Symbol("q", sort))
        assert (a.node_type(), a.serialize(), a.node_id()) == (b.node_type(), b.serialize(), b.node_id())
