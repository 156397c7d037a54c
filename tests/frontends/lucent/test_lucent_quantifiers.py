"""Quantifiers: over finite domains (expanded by the checker), decided by witness streams, kept
as SMT quantifiers; and ``any@<T>``.  Models Kind 2 also decides are compared with it in
``tests/data/kind2/agree/finite_quantifiers.lus``."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import answers, write


def test_bounded_quantifiers_over_arrays(tmp_path):
    model = write(tmp_path, """
const N: int = 3;
node Sorted(a: int^3) returns (ok: bool);
let
  ok = a[0] <= a[1] and a[1] <= a[2];
  check "first_is_least" ok => forall (i: int) 0 <= i and i < N => a[0] <= a[i];
  check "adjacent" ok => forall (i, k: int | 0 <= i and i < N and 0 <= k and k < N)
                          i <= k => a[i] <= a[k];
  check "wrong" forall (i: int) 0 <= i and i < N => a[0] <= a[i];
tel
""")
    assert answers(model) == {"first_is_least": "valid", "adjacent": "valid", "wrong": "falsifiable"}


def test_any_of_a_type(tmp_path):
    model = write(tmp_path, """
type T = subrange [0, 1] of int;
node N() returns (b: bool; v: T);
let
  b = any@<bool>;
  v = any@<T>;
  check "in_range" v <= 1;
  check "b" b;
tel
""")
    assert answers(model) == {"in_range": "valid", "b": "falsifiable",
                              "SubRange[L3C28]": "valid"}


SOLVERS = ["z3", "cvc5"]


def _answers(path, solver: str, engines: tuple[str, ...] = ("portfolio",)) -> dict[str, str]:
    out = {}
    for system in load_systems(path, LoadOptions()):
        for v in run(system, RunOptions(timeout=60, solver=solver, engines=engines)):
            out[v.property] = v.answer.value
    return out


def _verdicts(path, solver: str, engines: tuple[str, ...] = ("portfolio",)) -> dict:
    return {v.property: v for system in load_systems(path, LoadOptions())
            for v in run(system, RunOptions(timeout=60, solver=solver, engines=engines))}


@pytest.mark.parametrize("solver", SOLVERS)
def test_unbounded_quantifiers_in_properties_are_decided_by_a_witness(tmp_path, solver):
    model = write(tmp_path, """
type Pos = subtype { p: int | p > 0 };
node N(x: int) returns ();
let
  check "square" forall (i: int) i >= 0 => i * i >= 0;
  check "reals" forall (r: real) r = r;
  check "below" forall (i: int) 0 <= i and i < x => i < x;
  check "many" forall (i: int) 0 <= i and i < 100000 => i < 99999;
  check "typed" forall (p: Pos) p >= 1;
  check "concise" forall (i: int | i > x) i >= x + 1;
  check "nested" forall (k: int) (exists (j: int) k = j * j) => k >= 0;
  check "wrong" not (exists (i: int | i > 0) i + x = 0);
tel
""")
    got = _verdicts(model, solver)
    assert {k: v.answer.value for k, v in got.items()} == {
        "square": "valid", "reals": "valid", "below": "valid", "many": "falsifiable",
        "typed": "valid", "concise": "valid", "nested": "valid", "wrong": "falsifiable"}
    # the witness is an input of the trace: the counterexample replayed on the simulator
    last = got["many"].trace.steps[-1]
    assert 99999 in [v for k, v in last.items() if "witness" in k]


def test_a_callee_in_a_forall_owes_its_assumption_under_the_guard_only(tmp_path):
    # Kind 2 (success/forall_concise_syntax.lus, falsifiable/inline_call_cex.lus): the
    # variable's concise predicate guards the call, an implication in the body does not.
    model = write(tmp_path, """
function F(inp: int) returns (out: int)
con
  assume inp > 0;
noc
let
  out = inp + 1;
tel

node N() returns ()
let
  check "P1" forall (i: int | i > 0) F(i) > i;
  check "P2" forall (i: int) i > 0 => F(i) > i;
tel
""")
    assert answers(model) == {"P1": "valid", "P2": "valid", "F[L12C38].assume[L4C3]": "valid",
                              "F[L13C39].assume[L4C3]": "falsifiable"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_quantifiers_kept_as_smt_quantifiers(tmp_path, solver):
    model = write(tmp_path, """
type Action = enum { Shell, Command };
const C: subtype { c: int | exists (i: int) i + c = 0 and i > 0 };
node N(x: int) returns (y: int);
let
  assert forall (i: int) i <> x or i >= 0;
  y = x;
  check "const" C < 0;
  check "assumed" y >= 0;
  check "tuple" exists (e: [int, Action]) e = e;
  check "above" exists (i: int) i > y;
  check "gap" exists (i: int) i > y and i < y + 1;
  check reachable "reach" forall (i: int | i > y) i > 3;
tel
""")
    assert _answers(model, solver) == {"const": "valid", "assumed": "valid", "tuple": "valid",
                                       "above": "valid", "gap": "falsifiable",
                                       "reach": "reachable"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_ic3_alone_answers_unknown_on_quantified_formulas(tmp_path, solver):
    model = write(tmp_path, """
node N(x: int) returns ();
let
  check "above" exists (i: int) i > x;
  check "gap" exists (i: int) i > x and i < x + 1;
tel
""")
    got = _verdicts(model, solver, engines=("ic3",))
    assert {k: v.answer.value for k, v in got.items()} == {"above": "unknown", "gap": "unknown"}
    assert all("quantified" in v.message for v in got.values())


def test_a_quantified_formula_replay_cannot_decide_is_inconclusive(monkeypatch):
    from pysmt.environment import Environment
    from pysmt.typing import INT as SINT

    from kinduct.kernel import evaluate

    env = Environment()
    mgr = env.formula_manager
    x, y, z = (mgr.Symbol(n, SINT) for n in "xyz")
    cube = [mgr.Times(v, v, v) for v in (x, y, z)]
    fermat = mgr.Exists([x, y, z], mgr.And(mgr.GT(x, mgr.Int(0)), mgr.GT(y, mgr.Int(0)),
                                           mgr.GT(z, mgr.Int(0)),
                                           mgr.Equals(mgr.Plus(cube[0], cube[1]), cube[2])))
    monkeypatch.setattr(evaluate, "DECIDE_SECONDS", 0.2)
    with pytest.raises(evaluate.Undecided):
        evaluate.holds(env, fermat, {})
    assert evaluate.holds(env, mgr.Exists([x], mgr.GT(x, mgr.Int(3))), {}) is True


@pytest.mark.parametrize("prop, message", [
    ("exists (i: int) F(i) > 0", "this expression on the variable of a quantifier"),
    ("exists (i: int) i div 2 = x", "this expression on the variable of a quantifier"),
])
def test_quantifiers_beyond_terms_are_unsupported_and_located(tmp_path, prop, message):
    model = write(tmp_path, f"""
type T;
function F(a: int) returns (b: int); let b = a; check b = a; tel
node N(x: int) returns ();
let
  check {prop};
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:6:" in proc.stderr and f"unsupported: {message}" in proc.stderr, proc.stderr


def test_pre_of_a_quantified_variable_is_refused(tmp_path):
    # Kind 2 does not see the variable under 'pre' ("Unknown identifier"): it is a value, not
    # a stream; a witness stream's past would give it a meaning it does not have.
    model = write(tmp_path, """
node N(x: int) returns ();
let
  check forall (i: int) true -> pre i = i;
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:4:33:" in proc.stderr and "unsupported: 'pre' of a quantified variable" \
        in proc.stderr, proc.stderr


def test_any_reading_a_kept_quantifier_variable_is_refused(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns ();
let
  check exists (i: int) (any { v: int | v > i }) > x;
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:4:26:" in proc.stderr and "unsupported: this expression on the variable" \
        in proc.stderr, proc.stderr
