"""Terms outside linear arithmetic: cvc5 gets a logic that holds them, and a solver that cannot
decide a query makes the engine answer unknown with the reason (issue 21)."""

from __future__ import annotations

import pytest
from pysmt.environment import Environment
from pysmt.typing import INT, BVType

from kinduct.kernel import registry
from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.engine import EngineContext, make_options
from kinduct.kernel.system import Property, SystemBuilder
from kinduct.kernel.verdict import Answer
from kinduct.plugins.backends.pysmt_solvers import beyond_default_logic
from tests.conftest import properties, run_json

# Integer division by an input (with its remainder, as the Lucent translation writes it) and
# real division by an input: ok1 and ok2 are 1-inductive, ok3 fails at step 1 (d > 10).
DIVISIONS = """\
node top(d: int; e: real) returns (ok1, ok2, ok3: bool);
var x: int; r: real;
let
  x = 10 -> if d > 0 then (pre x) div d else pre x;
  r = 1.0 -> if e > 1.0 then (pre r) / e else pre r;
  ok1 = x >= 0 and x <= 10;
  ok2 = r > 0.0 and r <= 1.0;
  ok3 = x > 0;
  --%PROPERTY ok1;
  --%PROPERTY ok2;
  --%PROPERTY ok3;
tel
"""

# The same in VMT: products and quotients of variables.
PRODUCTS_VMT = """\
(declare-fun x () Int)
(declare-fun xn () Int)
(declare-fun d () Int)
(declare-fun r () Real)
(declare-fun rn () Real)
(declare-fun e () Real)
(define-fun sv.x () Int (! x :next xn))
(define-fun sv.r () Real (! r :next rn))
(define-fun init () Bool (! (and (= x 1) (= r 1.0)) :init true))
(define-fun trans () Bool (! (and (= xn (* x (ite (> d 1) d 1)))
                              (= rn (ite (> e 1.0) (/ r e) r))) :trans true))
(define-fun p0 () Bool (! (>= x 1) :invar-property 0))
(define-fun p1 () Bool (! (and (> r 0.0) (<= r 1.0)) :invar-property 1))
(define-fun p2 () Bool (! (< x 6) :invar-property 2))
"""

EXPECTED = {"ok1": "valid", "ok2": "valid", "ok3": "falsifiable"}


def _answers(path, solver: str, engine: str) -> dict[str, str]:
    code, out = run_json("check", path, "--solver", solver, "--engine", engine, "--timeout", "60")
    assert code in (0, 20, 40), out
    props = properties(out)
    for p in props.values():
        assert "crashed" not in str(p.get("answer", {})) and "crashed" not in str(p)
    return {name: p["answer"]["value"] for name, p in props.items()}


@pytest.mark.parametrize("engine", ["kind", "ic3"])
def test_division_by_variables_same_verdicts_under_both_solvers(tmp_path, engine):
    if not registry.backend("cvc5").available():
        pytest.skip("cvc5 is not installed")
    model = tmp_path / "divisions.lus"
    model.write_text(DIVISIONS)
    z3 = _answers(model, "z3", engine)
    cvc5 = _answers(model, "cvc5", engine)
    assert z3 == EXPECTED
    for name, answer in cvc5.items():
        assert answer in (EXPECTED[name], "unknown"), (name, answer)
    assert cvc5 == z3 or all(a == "unknown" for n, a in cvc5.items() if a != z3[n])


def test_products_of_variables_in_vmt_under_cvc5(tmp_path):
    if not registry.backend("cvc5").available():
        pytest.skip("cvc5 is not installed")
    model = tmp_path / "products.vmt"
    model.write_text(PRODUCTS_VMT)
    z3 = _answers(model, "z3", "portfolio")
    cvc5 = _answers(model, "cvc5", "portfolio")
    assert z3 == {"P0": "valid", "P1": "valid", "P2": "falsifiable"}
    assert cvc5 == z3


def test_nonlinear_detection():
    env = Environment()
    mgr = env.formula_manager
    x, y = mgr.Symbol("x", INT), mgr.Symbol("y", INT)
    mgr.Plus(x, mgr.Times(mgr.Int(3), x))
    assert not beyond_default_logic(env)
    mgr.Times(x, y)
    assert beyond_default_logic(env)


def test_bit_vector_detection():
    """Bit-vector terms (Lucent's machine integers) also need cvc5's ALL logic."""
    env = Environment()
    mgr = env.formula_manager
    x = mgr.Symbol("x", INT)
    mgr.Plus(x, mgr.Int(1))
    assert not beyond_default_logic(env)
    mgr.Symbol("b", BVType(8))
    assert beyond_default_logic(env)


def test_solver_refusing_a_term_raises_solver_unknown():
    """A cvc5 solver in a linear logic given a product of variables: SolverUnknown, not a crash."""
    if not registry.backend("cvc5").available():
        pytest.skip("cvc5 is not installed")
    env = Environment()
    mgr = env.formula_manager
    x, y = mgr.Symbol("x", INT), mgr.Symbol("y", INT)
    solver = registry.backend("cvc5").solver(env, logic="QF_LIA")
    with pytest.raises(SolverUnknown, match="non-linear"):
        solver.add(mgr.Equals(mgr.Times(x, y), mgr.Int(6)))
        solver.check()


class _Refusing:
    """A solver that cannot decide anything."""

    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        if name in ("check", "values"):
            def fail(*args, **kwargs):
                raise SolverUnknown("incomplete theory")
            return fail
        return lambda *args, **kwargs: None


def _options(engine: str) -> object:
    """Short settings: one invgen round, no invgen inside ic3."""
    settings = {"invgen": {"rounds": 1, "budget": 1.0}, "ic3": {"invgen": False}}
    return make_options(registry.engine(engine).Options, settings.get(engine, {}))


@pytest.mark.parametrize("engine", ["bmc", "kind", "ic3", "invgen"])
def test_engine_answers_unknown_with_the_reason(engine):
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("t", env=env)
    x = mgr.Symbol("x", INT)
    b.add_state(x, mgr.Symbol("x'", INT))
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_trans(mgr.Equals(mgr.Symbol("x'", INT), mgr.Plus(x, mgr.Int(1))))
    b.add_property(Property("P", mgr.GE(x, mgr.Int(0))))
    system = b.build()
    ctx = EngineContext(solver_name="fake", make_solver=lambda: _Refusing(env), max_k=5,
                        deadline=None, options=_options(engine),
                        publish_invariants=lambda lemmas: None, poll_invariants=lambda: [])
    verdicts = list(registry.engine(engine).check(system, system.properties, ctx))
    assert verdicts, engine
    assert all(v.answer is Answer.UNKNOWN for v in verdicts)
    assert "incomplete theory" in verdicts[-1].message
