"""Constants inside nodes (``frontends/lucent/check/constants.py``): ``const`` parameters
instanced per call, free and later-declared local constants, refinement types that read a
node's streams, and the located refusals where a value kinduct needs is unknown."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_checked, load_systems
from kinduct.kernel.errors import UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.frontends.lucent.helpers import place, refusal, write

SOLVERS = ["z3", "cvc5"]


def scoped(path, solver: str) -> dict[tuple[str, str], str]:
    """(analysed node, property) → answer, over every analysis of the file."""
    out = {}
    for system in load_systems(path, LoadOptions()):
        for v in run(system, RunOptions(timeout=60, solver=solver)):
            out[(system.origin.top, v.property)] = v.answer.value
    return out


def answers(path, solver: str) -> dict[str, str]:
    return {p: a for (_, p), a in scoped(path, solver).items()}


@pytest.mark.parametrize("solver", SOLVERS)
def test_const_parameters_size_arrays_per_call(tmp_path, solver):
    """Each call with its own constant arguments calls its own instance."""
    model = write(tmp_path, """
const K = 2;
node Incr(const n: int; x: int^n) returns (y: int^n);
let
  y[i] = x[i] + 1;
tel
node Top(a: int^3; b: int^2) returns ();
let
  check "last" Incr(3, a)[2] = a[2] + 1;
  check "global" Incr(K, b)[1] = b[1] + 1;
  check "wrong" Incr(K + 1, a)[0] = a[0];
tel
""")
    assert answers(model, solver) == {"last": "valid", "global": "valid", "wrong": "falsifiable"}
    names = load_checked(model).nodes
    assert {"Incr<<n=3>>", "Incr<<n=2>>"} <= set(names)


def test_const_parameter_is_its_value_in_the_instance(tmp_path):
    """Inside an instance a const parameter is a constant: it sizes '^' and passes on."""
    model = write(tmp_path, """
node Fill(const n: int; v: int) returns (y: int^n);
let
  y = v ^ n;
tel
node Twice(const n: int; v: int) returns (y: int^n; z: int^n);
let
  y = Fill(n, v);
  z = Fill(n, v + v);
tel
node Top(v: int) returns ();
var a, b: int^4;
let
  a, b = Twice(4, v);
  check "z" b[3] = 2 * a[3];
tel
""")
    assert answers(model, "z3") == {"z": "valid"}


@pytest.mark.parametrize("argument", ["x", "pre c", "x -> 3"])
def test_argument_of_a_const_parameter_must_be_constant(tmp_path, argument):
    model = write(tmp_path, f"""
node N(const n: int; x: int) returns (y: int);
let y = x + n; tel
node M(x: int) returns (c: int);
let
  c = N({argument}, x);
tel
""")
    e = refusal(model)
    assert "the argument of the const parameter 'n' of N must be a constant" in str(e)
    assert place(e) == (6, 9)


def test_top_node_with_unknown_array_size_is_analysed_for_every_size(tmp_path):
    """Its arrays have the symbolic size n (:mod:`.symarrays`)."""
    model = write(tmp_path, """
node N(const n: int; x: int^n) returns (y: int^n);
let
  y = x;
  check n > 0 => y[0] = x[0];
tel
""")
    verdicts = {v.property: v.answer.value for system in load_systems(model, LoadOptions())
                for v in run(system, RunOptions(timeout=60))}
    assert verdicts == {"n > 0 => y[0] = x[0]": "valid"}


def test_array_sized_by_a_callee_const_parameter_given_a_free_constant_is_refused(tmp_path):
    model = write(tmp_path, """
const M: int;
node F(const n: int; x: int^n) returns (y: int); let y = 0; tel
node G(x: int^M) returns (y: int); let y = F(M, x); tel
""")
    e = refusal(model, UnsupportedError)
    assert "const parameter 'n' of F" in str(e)
    assert place(e) == (3, 29)


def test_uncalled_node_sized_by_unknown_constant_is_type_checked(tmp_path):
    """A node nobody calls whose arrays need its const parameter is checked with symbolic
    sizes: a type error there refuses it where it is."""
    fine = write(tmp_path, """
node Slice(const n: int; A: int^n; const lo: int; const up: int) returns (B: int^(up - lo));
let
  B[i] = A[lo + i];
tel
""", "fine.lus")
    assert [s.properties for s in load_systems(fine, LoadOptions())] == [()]
    bad = write(tmp_path, """
node Bad(const n: int; A: int^n) returns (B: bool^n);
let
  B = A;
tel
""", "bad.lus")
    e = refusal(bad)
    assert place(e) == (4, 7)


@pytest.mark.parametrize("solver", SOLVERS)
def test_node_analysed_once_per_value_its_assumptions_allow(tmp_path, solver):
    model = write(tmp_path, """
node Last(const n: int; A: int^n) returns (m: int);
(*@contract
  assume n >= 1 and n <= 3;
*)
let
  m = A[n - 1];
  check "first" m = A[0];
  check "bounded" m = A[n - 1];
tel
""")
    got = scoped(model, solver)
    assert got == {
        ("Last<<n=1>>", "first"): "valid", ("Last<<n=1>>", "bounded"): "valid",
        ("Last<<n=2>>", "first"): "falsifiable", ("Last<<n=2>>", "bounded"): "valid",
        ("Last<<n=3>>", "first"): "falsifiable", ("Last<<n=3>>", "bounded"): "valid",
    }


@pytest.mark.parametrize("solver", SOLVERS)
def test_free_local_constant_is_fixed_and_arbitrary(tmp_path, solver):
    model = write(tmp_path, """
type Nat = subrange [0, *] of int;
node P() returns (c: int);
const C: Nat;
let
  c = C;
  check "fixed" true -> C = pre C;
  check "typed" C >= 0;
  check "positive" C > 0;
tel
node Top() returns ();
let
  check "apart" P() = P();
tel
""")
    assert answers(model, solver) == {
        "P[L13C17].fixed": "valid", "P[L13C17].typed": "valid", "P[L13C17].positive": "falsifiable",
        "P[L13C23].fixed": "valid", "P[L13C23].typed": "valid",
        "P[L13C23].positive": "falsifiable", "apart": "falsifiable"}


def test_local_constants_may_name_later_ones(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (y: int);
const a = b + 1; b = 2; c, d: bool;
var A: int^a;
let
  A = x ^ a;
  y = A[2];
  check "y" y = x;
tel
""")
    assert answers(model, "z3") == {"y": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_refinement_types_read_the_node_streams(tmp_path, solver):
    model = write(tmp_path, """
function Bound(x: int) returns (y: int);
let y = x + 1; tel
node N(a: int; b: subtype { v: int | v > Bound(a) }) returns (n: int; y: subrange [0, n] of int);
var l: subtype { x: int | a <= x };
let
  n = if b > 0 then b else 0;
  l = a + 10;
  y = 0;
  check "b" b > a;
  check "asc" (a : subtype { v: int | v < b }) < b;
tel
""")
    got = answers(model, solver)
    assert got["b"] == "valid" and got["asc"] == "valid"
    assert [a for p, a in got.items() if p.startswith("SubType") or p.startswith("SubRange")] \
        and all(a == "valid" for a in got.values())


def test_ghost_variables_may_be_read_before_their_declaration(tmp_path):
    model = write(tmp_path, """
node N(i: bool) returns (o: bool);
(*@contract
  var v2: bool = false -> pre v1;
  var v1: bool = i;
  guarantee v2 = (false -> pre i);
*)
let
  o = i;
tel
""")
    assert set(answers(model, "z3").values()) == {"valid"}


@pytest.mark.parametrize("declaration", ["x: subtype { v: int | v = y + 1 }", "x: int | x = y + 1"])
def test_input_type_may_not_read_the_outputs(tmp_path, declaration):
    """Regression: an input's type that read the current output was assumed, made the node
    vacuous and 'check false' valid (Kind 2 refuses it)."""
    model = write(tmp_path, f"""
node N({declaration}) returns (y: int);
let
  y = x;
  check false;
tel
""")
    e = refusal(model)
    assert "the type of input 'x' reads 'y' at the current step" in str(e)
    assert e.location.line == 2


@pytest.mark.parametrize("solver", SOLVERS)
def test_input_type_may_read_other_inputs_and_past_outputs(tmp_path, solver):
    model = write(tmp_path, """
node N(x: subtype { v: int | v > z }; z: int) returns (y: int);
let
  y = x;
  check "gt" y > z;
  check "wrong" y > z + 1;
tel
""")
    assert answers(model, solver) == {"gt": "valid", "wrong": "falsifiable"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_free_constant_argument_calls_the_node_for_every_value(tmp_path, solver):
    """A const parameter given a free constant is an unknown input that never changes."""
    model = write(tmp_path, """
const C: int;
node Add(const k: int; x: int) returns (y: int);
let
  y = x + k;
  check "fixed" true -> k = pre k;
tel
node M(x: int) returns (y: int);
let
  y = Add(C, x);
  check "c" y = x + C;
  check "e" y > x;
tel
""")
    assert answers(model, solver) == {"Add[L10C7].fixed": "valid", "c": "valid",
                                      "e": "falsifiable"}


def test_type_and_const_parameters_together(tmp_path):
    model = write(tmp_path, """
node Delay<T>(const n: int; x: T^n) returns (y: T^n);
let
  y = x -> pre x;
tel
node M(a: int^3; b: bool^5) returns ();
let
  check "a" Delay@<int>(3, a)[0] = (a[0] -> pre a[0]);
  check "b" Delay(5, b)[4] = (b[4] -> pre b[4]);
tel
""")
    assert answers(model, "z3") == {"a": "valid", "b": "valid"}
    assert {"Delay<<int, n=3>>", "Delay<<bool, n=5>>"} <= set(load_checked(model).nodes)


@pytest.mark.parametrize("value", ["Count()", "any@<int>"])
def test_local_constant_may_not_call_nodes(tmp_path, value):
    """As Kind 2 ("Illegal node call … in definition of constant"): its value would change."""
    model = write(tmp_path, f"""
node Count() returns (c: int);
let c = 0 -> pre c + 1; tel
node M() returns (z: int);
const c: int = {value};
let
  z = c;
tel
""")
    e = refusal(model)
    assert "in the definition of constant 'c'" in str(e)
    assert place(e) == (5, 16)


def test_free_local_constant_type_names_no_stream(tmp_path):
    """As Kind 2 ("Illegal variable 'x' in type of constant"): a constant's type is fixed."""
    model = write(tmp_path, """
node N(x: int) returns (y: int);
const C: subtype { v: int | v > x };
let
  y = C;
tel
""")
    e = refusal(model)
    assert place(e) == (3, 33)


def test_instance_analysed_on_its_own_reads_its_value(tmp_path):
    """A counterexample of the instance for n = 2 shows n = 2."""
    model = write(tmp_path, """
node Last(const n: int; A: int^n) returns (m: int);
(*@contract
  assume n >= 2 and n <= 2;
*)
let
  m = A[n - 1];
  check "first" m = A[0];
tel
""")
    [system] = load_systems(model, LoadOptions())
    [verdict] = run(system, RunOptions(timeout=60))
    assert verdict.answer.value == "falsifiable"
    assert all(step["n"] == 2 for step in verdict.trace.steps)
