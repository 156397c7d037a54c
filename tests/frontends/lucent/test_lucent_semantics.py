"""Lucent semantics that once gave wrong verdicts or internal errors (issue 13), each on a
minimal model; the expected answers are Kind 2 v3.0.0's on the same model."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run


def check(tmp_path, text: str, **options) -> dict[str, tuple[str, str]]:
    """Property name → (answer, source), with the k-induction engine only (fast, complete for
    these small models)."""
    path = tmp_path / "m.lus"
    path.write_text(text.lstrip("\n"))  # line 1 is the first line of the model
    out = {}
    for system in load_systems(path, LoadOptions(**options)):
        sources = {p.name: p.source for p in system.properties}
        for v in run(system, RunOptions(engines=("kind",), timeout=60)):
            out[v.property] = (v.answer.value, sources[v.property])
    return out


def answers(tmp_path, text: str, **options) -> dict[str, str]:
    return {k: a for k, (a, _) in check(tmp_path, text, **options).items()}


def test_refinement_nested_in_record_and_array_inputs_is_an_assumption(tmp_path):
    got = answers(tmp_path, """
type Nat = subrange [0, *] of int;
type Small = subtype { i: Nat | i < 10 };
type R = struct { f1: Small };
node N(r: R; a: Small^2; t: [int, Small]) returns ();
let
  check r.f1 < 10;
  check a[1] >= 0;
  check t[1] < 10;
tel
""")
    assert got == {"r.f1 < 10": "valid", "a[1] >= 0": "valid", "t[1] < 10": "valid"}


def test_ghost_variables_of_an_imported_node_contract_are_kept(tmp_path):
    got = answers(tmp_path, """
node imported f(x: int) returns (y: int);
(*@contract
  var g: bool = y >= x;
  guarantee g;
*)
node top(x: int) returns (y: int);
let
  y = f(x);
  check y >= x;
tel
""")
    assert got == {"y >= x": "valid"}


def test_imported_contract_with_a_temporal_argument(tmp_path):
    # the contract's 'x' is the argument 'x -> pre y', not the node's input 'x'
    got = answers(tmp_path, """
contract Spec(x: int) returns (y: int);
let
  guarantee y >= x;
tel
node N(x: int) returns (y: int);
(*@contract
  import Spec(x -> pre y) returns (y);
*)
let
  y = x -> pre y + 1;
tel
""")
    assert got == {"Spec[L7C3].guarantee[L3C3]": "valid"}  # named by the import site, as Kind 2


def test_node_and_function_calls_inside_a_contract(tmp_path):
    got = answers(tmp_path, """
function imported f(x: int) returns (y: int);
(*@contract guarantee y > 0; *)
node top(x: int) returns (z: int);
(*@contract
  guarantee f(x) > z;
*)
let
  z = f(x) - 1;
tel
""")
    assert got == {"guarantee[L5C3]": "valid"}


def test_defined_constant_is_checked_against_its_refinement_type(tmp_path):
    got = check(tmp_path, """
type Nat = subtype { x: int | x >= 0 };
const nat: Nat = -1;
node N() returns (out: int);
let
  out = nat;
  check out < 0;
tel
""")
    assert got == {"SubType[L2C1]": ("falsifiable", "Guarantee"), "out < 0": ("valid", "PropAnnot")}


def test_imported_function_is_a_function_at_one_step_and_across_steps(tmp_path):
    got = answers(tmp_path, """
function imported F(x: int) returns (y: int);
node N(a: int) returns ();
var p, q: int;
let
  p = F(a);
  q = F(a);
  check p = q;
  check true -> (a = pre a => p = pre p);
tel
""")
    assert got == {"p = q": "valid", "true -> (a = pre a => p = pre p)": "valid"}


def test_imported_function_counterexample_is_never_inconsistent(tmp_path):
    # F(a) = F(b) whenever a = b; a genuine counterexample exists (a <> b)
    got = answers(tmp_path, """
function imported F(x: int) returns (y: int);
node N(a, b: int) returns ();
let
  check F(a) = F(b);
tel
""")
    assert got == {"F(a) = F(b)": "falsifiable"}


def test_callee_guarantee_is_owed_only_while_its_assumptions_held(tmp_path):
    got = check(tmp_path, """
node Inc(x: int) returns (y: int);
(*@contract
  assume x >= 0;
  guarantee y > 0;
*)
let
  y = x + 1;
tel
node Top(a: int) returns (z: int);
let
  z = Inc(a);
tel
""")
    assert got == {"Inc[L11C7].assume[L3C3]": ("falsifiable", "Assumption"),
                   "Inc[L11C7].guarantee[L4C3]": ("valid", "Guarantee")}


def test_stateful_callee_guarantee_needs_the_assumptions_so_far(tmp_path):
    # once x < 0 has happened, the callee owes nothing, even if x >= 0 again
    got = answers(tmp_path, """
node Acc(x: int) returns (s: int);
(*@contract
  assume x >= 0;
  guarantee s >= 0;
*)
let
  s = x -> pre s + x;
tel
node Top(a: int) returns (z: int);
let
  z = Acc(a);
tel
""")
    assert got["Acc[L11C7].guarantee[L4C3]"] == "valid"


def test_function_guarantee_depends_on_the_current_assumption_only(tmp_path):
    got = answers(tmp_path, """
function imported F1(x: int) returns (z: int);
(*@contract
  assume x >= 0;
  guarantee z > 0;
*)
node F2(x: int) returns (z: int);
(*@contract
  guarantee "P1" z > 0;
*)
let
  z = if x >= 0 then F1(x) else 1;
tel
""")
    assert got == {"F1[L11C22].assume[L3C3]": "falsifiable", "P1": "valid"}


def test_obligations_for_outputs_locals_ascriptions_and_call_arguments(tmp_path):
    got = check(tmp_path, """
type Nat = subrange [0, *] of int;
type Small = subtype { i: int | i < 10 };
node Sub(a: Nat) returns (b: Nat);
let
  b = a;
tel
node N(x: int) returns (y: Nat);
var l: Small;
let
  y = x;
  l = Sub(x);
  check (x : Nat) >= 0;
tel
""")
    assert got == {
        "SubRange[L7C25]": ("falsifiable", "Guarantee"),
        "SubType[L8C1]": ("falsifiable", "Generated"),  # at `var`, as Kind 2
        "Sub[L11C7].SubRange[L3C10]": ("falsifiable", "Assumption"),
        "Sub[L11C7].SubRange[L3C27]": ("valid", "Guarantee"),
        "N.type_ascription_L12C9[L12C9].SubRange[L12C9]": ("falsifiable", "Assumption"),
        "(x : Nat) >= 0": ("falsifiable", "PropAnnot"),
    }


def test_out_of_range_array_read_is_unconstrained(tmp_path):
    got = answers(tmp_path, """
node N(x: int; i: int) returns (y: int^3);
let
  y = x^3;
  check y[7] = x;
  check (if 0 <= i and i < 3 then y[i] else x) = x;
tel
""")
    assert got == {"y[7] = x": "falsifiable", "(if 0 <= i and i < 3 then y[i] else x) = x": "valid"}


def test_compositional_analysis_of_imported_callee_assumptions(tmp_path):
    text = """
node imported G(x: int) returns (y: int);
(*@contract
  assume x > 0;
  guarantee y > x;
*)
node Mid(x: int) returns (y: int);
(*@contract
  guarantee y >= x;
*)
let
  y = if x > 0 then G(x) else x;
tel
node Top(a: int) returns (b: int);
let
  b = Mid(a);
  check b >= a;
tel
"""
    for options in ({"compositional": True}, {"compositional": True, "modular": True}):
        got = answers(tmp_path, text, **options)
        assert "error" not in got.values()
        assert got["b >= a"] == "valid"


TWICE = """
node Twice(x: int) returns (y: int);
(*@contract guarantee y >= x; *)
let
  y = 2 * x - x;
tel
node Top(a: int) returns (b: int);
let
  b = Twice(a);
  check b = a;
tel
"""


def test_compositional_answer_is_the_abstractions(tmp_path):
    # the contract is too weak for the property: the abstraction falsifies it (Kind 2 too),
    # the bodies do not
    got = answers(tmp_path, TWICE, compositional=True)
    assert got == {"b = a": "falsifiable"}


@pytest.mark.parametrize("text, message", [
    ("type T = int^1000000000;\nnode N(x: T) returns ();\nlet tel\n", "limit"),
    ("node N(x: int) returns (y: int^3);\nlet\n  y = x^1000000000;\ntel\n", "limit"),
])
def test_huge_arrays_are_refused_before_allocation(tmp_path, text, message):
    path = tmp_path / "m.lus"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        load_systems(path, LoadOptions())
    assert info.value.location is not None and info.value.location.line is not None


def test_modular_compositional_check_refines_with_the_proved_callee_body(tmp_path):
    """On the command line, ``--modular --compositional`` analyses Twice (its contract holds),
    then Top on Twice's contract (falsified), then Top with Twice's body (valid), as Kind 2;
    ``--compositional`` alone stops at the abstraction."""
    import json
    import subprocess
    import sys
    path = tmp_path / "m.lus"
    path.write_text(TWICE)

    def analyses(*flags: str) -> tuple[int, list]:
        got = subprocess.run([sys.executable, "-m", "kinduct.kernel.cli", "check", "--json",
                              "--engine", "kind", *flags, str(path)], capture_output=True, text=True)
        out: list = []
        for o in json.loads(got.stdout):
            if o.get("objectType") == "analysisStart":
                out.append((o["top"], o["abstract"], {}))
            elif o.get("objectType") == "property":
                out[-1][2][o["name"]] = o["answer"]["value"]
        return got.returncode, out

    assert analyses("--modular", "--compositional") == (40, [
        ("Twice", [], {"guarantee[L3C13]": "valid"}),
        ("Top", ["Twice"], {"b = a": "falsifiable"}),
        ("Top", [], {"b = a": "valid"})])
    assert analyses("--compositional") == (40, [("Top", ["Twice"], {"b = a": "falsifiable"})])


def test_local_and_ghost_constants_and_ghost_variables_are_checked_against_their_types(tmp_path):
    got = check(tmp_path, """
type Pos = subtype { x: int | x >= 1 };
function imported F() returns (x: int);
(*@contract
  var l: Pos = 0;
  guarantee x > l;
*)
node N() returns (z: int);
  const c: subrange [0, *] of int = -1;
let
  z = F();
  check "P1" z > 0;
tel
""")
    # Kind 2's names and sources: the imported function's ghost obligation is Generated, the
    # local constant's is placed at its `const` keyword
    assert got == {"F[L10C7].SubType[L4C7]": ("falsifiable", "Generated"),
                   "SubRange[L8C3]": ("falsifiable", "Generated"),
                   "P1": ("valid", "PropAnnot")}


def test_human_output_names_the_abstraction_and_whether_its_counterexample_is_real(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "m.lus"
    path.write_text(TWICE)
    got = subprocess.run([sys.executable, "-m", "kinduct.kernel.cli", "check", "--engine", "kind",
                          "--compositional", str(path)], capture_output=True, text=True)
    assert got.returncode == 40
    assert "Top (by contract: Twice)" in got.stdout
    assert "with Twice by its contract only; with the implementations, the same inputs do not" \
        in got.stdout
