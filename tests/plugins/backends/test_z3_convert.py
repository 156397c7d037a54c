"""The z3 solver's converter (``z3_convert.FastZ3Converter``) makes the terms PySMT's own
converter makes."""

from __future__ import annotations

from pysmt.environment import Environment
from pysmt.logics import QF_UFLIRA
from pysmt.solvers.z3 import Z3Solver
from pysmt.typing import BOOL, INT, REAL, FunctionType

from kinduct.plugins.backends.z3_convert import FastZ3Solver


def _formulas(env: Environment) -> list:
    mgr = env.formula_manager
    x, y = mgr.Symbol("x", INT), mgr.Symbol("y", INT)
    r, b = mgr.Symbol("r", REAL), mgr.Symbol("b", BOOL)
    f = mgr.Symbol("f", FunctionType(INT, [INT]))
    shared = mgr.Plus(x, mgr.Times(y, mgr.Int(3)))
    return [
        mgr.And(b, mgr.LE(shared, mgr.Function(f, [shared])), mgr.Not(mgr.Equals(x, y))),
        mgr.Implies(mgr.Ite(b, mgr.GT(x, y), mgr.Iff(b, mgr.FALSE())),
                    mgr.LT(mgr.ToReal(x), mgr.Plus(r, mgr.Real((1, 3))))),
        mgr.Equals(mgr.Ite(mgr.Or(b, mgr.TRUE()), x, mgr.Minus(y, mgr.Int(-7))), shared),
        mgr.ForAll([y], mgr.Or(mgr.LE(x, y), mgr.GT(y, mgr.Int(0)))),
    ]


def test_same_terms_as_pysmts_converter() -> None:
    env = Environment()
    ours, theirs = FastZ3Solver(env, QF_UFLIRA), Z3Solver(env, QF_UFLIRA)
    for formula in _formulas(env):
        assert ours.converter.convert(formula).sexpr() == theirs.converter.convert(formula).sexpr()


def test_renamed_as_converted_is_the_conversion_of_the_renamed_formula() -> None:
    """``Unroller.assert_at`` through z3's ``add_renamed`` (renaming while converting, no
    renamed PySMT formula) asserts the very term that converting ``Unroller.at`` makes, on
    the formulas of Lucent systems with records, enumerations, arrays, calls and contracts,
    at steps 0 and 3."""
    from kinduct.kernel import registry
    from kinduct.kernel.frontend import LoadOptions
    from kinduct.kernel.loading import load_systems
    from kinduct.kernel.unroll import Unroller
    from tests.conftest import EXAMPLES

    backend = registry.backend("z3")
    for name in ("contract_node.lus", "accumulator_modes.lus", "compositional.lus"):
        (system,) = load_systems(EXAMPLES / "lucent" / name, None, LoadOptions())[:1]
        ours, theirs = backend.solver(system.env), backend.solver(system.env)
        unroller, plain = Unroller(system), Unroller(system)
        for formula, k in [(system.init, 0), (system.trans, 0), (system.trans, 3),
                           *[(a, 3) for a in system.assumptions]]:
            unroller.assert_at(ours, formula, k)
            theirs.add(plain.at(formula, k))
            assert ours.native.assertions()[-1].eq(theirs.native.assertions()[-1]), (name, formula)
