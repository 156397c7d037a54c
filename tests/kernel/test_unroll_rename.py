"""``unroll.rename`` builds the very terms PySMT's substituter builds, and leaves quantified
formulas to it; ``Unroller.at`` renames each variable to its copy of the step."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pysmt.environment import Environment
from pysmt.typing import BOOL, INT, FunctionType

from kinduct.kernel.system import SystemBuilder
from kinduct.kernel.unroll import Unroller, rename

ENV = Environment()
MGR = ENV.formula_manager
INTS = [MGR.Symbol(f"x{i}", INT) for i in range(3)]
BOOLS = [MGR.Symbol(f"b{i}", BOOL) for i in range(2)]
F = MGR.Symbol("f", FunctionType(INT, [INT]))
MAPPING = {**{v: MGR.Symbol(f"{v.symbol_name()}@1", INT) for v in INTS[:2]},
           BOOLS[0]: MGR.Symbol("b0@1", BOOL)}


def _int_terms():
    leaf = st.sampled_from(INTS) | st.integers(-3, 3).map(MGR.Int)
    return st.recursive(leaf, lambda t: st.one_of(
        st.tuples(t, t).map(lambda p: MGR.Plus(*p)),
        st.tuples(t, t).map(lambda p: MGR.Times(p[0], MGR.Int(2))),
        t.map(lambda a: MGR.Function(F, [a]))), max_leaves=8)


def _bool_terms():
    ints = _int_terms()
    atom = st.sampled_from(BOOLS) | st.tuples(ints, ints).map(lambda p: MGR.LE(*p)) | \
        st.tuples(ints, ints).map(lambda p: MGR.Equals(*p))
    return st.recursive(atom, lambda t: st.one_of(
        st.lists(t, min_size=2, max_size=3).map(MGR.And),
        t.map(MGR.Not),
        st.tuples(t, t).map(lambda p: MGR.Implies(*p)),
        st.tuples(t, ints, ints).map(lambda p: MGR.Equals(MGR.Ite(*p), INTS[2]))), max_leaves=10)


@settings(max_examples=80, deadline=None)
@given(_bool_terms())
def test_same_terms_as_pysmt(formula) -> None:
    assert rename(MGR, formula, MAPPING) is ENV.substituter.substitute(formula, MAPPING)


def test_quantified_is_left_to_pysmt() -> None:
    y = MGR.Symbol("y", INT)
    formula = MGR.And(BOOLS[0], MGR.ForAll([y], MGR.LE(INTS[0], y)))
    assert rename(MGR, formula, MAPPING) is None


def test_untouched_formula_is_itself() -> None:
    formula = MGR.LE(INTS[2], MGR.Function(F, [INTS[2]]))
    assert rename(MGR, formula, MAPPING) is formula


@settings(max_examples=100, deadline=None)
@given(_bool_terms())
def test_copy_replaces_leaves_as_the_mapping_would(formula) -> None:
    asked: list = []

    def copy(leaf):
        asked.append(leaf)
        return MAPPING.get(leaf)

    assert rename(MGR, formula, {}, copy) is ENV.substituter.substitute(formula, MAPPING)
    assert len(asked) == len(set(asked))  # once per leaf


def test_unroller_renames_current_and_next_variables_of_any_step() -> None:
    b = SystemBuilder()
    mgr = b.mgr
    x, x_next = b.state("x", INT)
    i = b.input("i", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(x_next, mgr.Plus(x, i)))
    system = b.build()
    unroller = Unroller(system)
    for k in (2, 0):
        got = unroller.at(system.trans, k)
        want = mgr.Equals(mgr.Symbol(f"x@{k + 1}", INT),
                          mgr.Plus(mgr.Symbol(f"x@{k}", INT), mgr.Symbol(f"i@{k}", INT)))
        assert got is want
        assert unroller.timed(x, k + 1) is mgr.Symbol(f"x@{k + 1}", INT)
