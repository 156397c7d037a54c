"""``choose`` (``any`` made a function of what its predicate reads) and the refusal of
recursive nodes and functions (``rec``)."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import write

SOLVERS = ["z3", "cvc5"]


def _verdicts(path, solver: str) -> dict:
    return {v.property: v for system in load_systems(path, LoadOptions())
            for v in run(system, RunOptions(timeout=60, solver=solver))}


@pytest.mark.parametrize("solver", SOLVERS)
def test_choose_is_a_function_of_what_its_predicate_reads(tmp_path, solver):
    model = write(tmp_path, """
type Pos = subtype { p: int | p > 0 };
node N(c: int) returns (r, s, t: int; p: Pos);
let
  r = choose { x: int | x > c };
  s = choose@<int>;
  t = any { x: int | x > 0 };
  p = choose@<Pos>;
  check "fn" true -> ((c = pre c) => (r = pre r));
  check "const" true -> (s = pre s and p = pre p);
  check "pred" r > c;
  check "any_not_fn" true -> (t = pre t);
  check "tight" r > c + 1;
tel
""")
    got = _verdicts(model, solver)
    assert {k: v.answer.value for k, v in got.items()} == {
        "fn": "valid", "const": "valid", "pred": "valid", "any_not_fn": "falsifiable",
        "tight": "falsifiable", "SubType[L3C39]": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_choose_read_inconsistently_far_apart_is_unknown_never_falsified(tmp_path, solver):
    # Choices are tied at one step and between adjacent steps; a counterexample that needs
    # equal arguments two steps apart to give two values is caught on replay.
    model = write(tmp_path, """
node N(c: int) returns (r: int);
var k: int;
let
  r = choose { x: int | x > c };
  k = 0 -> pre k + 1;
  check "far" k >= 2 => ((c = pre (pre c)) => (r = pre (pre r)));
tel
""")
    got = _verdicts(model, solver)["far"]
    assert got.answer.value in ("valid", "unknown")
    if got.answer.value == "unknown" and got.message and "choose" in got.message:
        assert "not modelled as a function" in got.message


def test_choose_in_a_quantifier_depends_on_its_witness(tmp_path):
    # The predicate reads the quantified variable (a witness stream): the choice is a function
    # of it, so 'forall' holds for each value.
    model = write(tmp_path, """
node N() returns ();
let
  check "w" forall (i: int) (choose { x: int | x > i }) > i;
tel
""")
    assert {k: v.answer.value for k, v in _verdicts(model, "z3").items()} == {"w": "valid"}


def test_recursive_nodes_are_refused_located(tmp_path):
    model = write(tmp_path, """
function rec Fact(n: int) returns (f: int);
let
  f = when n <= 0 then 1 else n * Fact(n - 1);
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:2:1:" in proc.stderr and "unsupported: recursive nodes" in proc.stderr
