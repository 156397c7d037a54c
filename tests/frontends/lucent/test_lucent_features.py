"""Classic Kind 2 syntax and the remaining language features, end to end."""

from __future__ import annotations

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from tests.frontends.lucent.helpers import answers, simulate


def write(tmp_path, text, name="m.lus"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_legacy_contract_comment_and_property_annotation(tmp_path):
    src = write(tmp_path, """
node Abs(x: int) returns (y: int);
(*@contract
  guarantee y >= 0;
*)
let
  y = if x < 0 then -x else x;
  --%PROPERTY y >= x;
  --%MAIN;
tel
""")
    got = answers(src)
    assert got == {"guarantee[L4C3]": "valid", "y >= x": "valid"}


def test_include_and_free_constant_with_subrange(tmp_path):
    write(tmp_path, "const K: subrange [1, 5] of int;\n", "lib.lus")
    src = write(tmp_path, """
include "lib.lus";
node N(x: int) returns (y: int);
let
  y = x * K;
  check "positive scale" x > 0 => y > 0;
  check "bounded" K <= 4;
tel
""")
    assert answers(src) == {"positive scale": "valid", "bounded": "falsifiable"}


def test_reachable_at(tmp_path):
    src = write(tmp_path, """
node C() returns (n: int);
let
  n = 0 -> pre n + 1;
  check reachable "three at 3" n = 3 at 3;
  check reachable "three at 2" n = 3 at 2;
tel
""")
    assert answers(src) == {"three at 3": "reachable", "three at 2": "unreachable"}


def test_called_node_properties_named_by_call_site(tmp_path):
    src = write(tmp_path, """
node Inner(x: int) returns (y: int);
let
  y = x + 1;
  check "grows" y > x;
  check "positive" y > 0;
tel

node Outer(a: int) returns (b: int);
let
  b = Inner(a);
tel
""")
    assert answers(src) == {"Inner[L11C7].grows": "valid", "Inner[L11C7].positive": "falsifiable"}


def test_callee_assumption_checked_at_call_site(tmp_path):
    src = write(tmp_path, """
node Div(x, y: int) returns (z: int);
con
  assume "nonzero" y <> 0;
noc
let
  z = x div y;
tel

node Top(a: int) returns (b: int);
let
  b = Div(a, a);
tel
""")
    assert answers(src) == {"Div[L12C7].nonzero": "falsifiable"}


def test_enumeration_simulation_and_acceptor_metadata(tmp_path):
    src = write(tmp_path, """
type Light = enum { Red, Green };
node Flip(go: bool) returns (l: Light);
let
  l = Red -> if go then (if pre l = Red then Green else Red) else pre l;
tel
""")
    rows = simulate(src, [{"go": False}, {"go": True}, {"go": True}])
    assert [r["l"] for r in rows] == [0, 1, 0]  # Red, Green, Red
    (system,) = load_systems(src, LoadOptions())
    assert [v.symbol_name() for v in system.interface.inputs] == ["go"]
    assert [v.symbol_name() for v in system.interface.outputs] == ["l"]


def test_tuple_dialect_of_jkind(tmp_path):
    src = write(tmp_path, """
node main(a, b: int) returns ();
var lo, hi: int; ok: bool;
let
  lo, hi = if a < b then (a, b) else (b, a);
  ok = lo <= hi;
  --%PROPERTY ok;
tel;
""")
    assert answers(src) == {"ok": "valid"}


def test_free_constant_refinement_is_an_assumption(tmp_path):
    src = write(tmp_path, """
type Pos = subtype { v: int | v > 0 };
const K: Pos;
node N(x: int) returns (y: int);
let
  y = K;
  check "positive" y > 0;
  check "not one" y <> 1;
tel
""")
    assert answers(src) == {"positive": "valid", "not one": "falsifiable"}


def test_simulate_reports_default_choices(tmp_path):
    from tests.conftest import run_cli
    src = write(tmp_path, "node N(x: int) returns (y: int);\nlet\n  y = pre x;\ntel\n")
    inputs = write(tmp_path, "x\n1\n2\n", "in.csv")
    proc = run_cli("simulate", src, "--input", inputs)
    assert proc.returncode == 0
    assert "note: unspecified values" in proc.stderr


def test_compositional_counterexample_is_the_abstractions_and_says_it_is_not_real():
    from tests.frontends.lucent.helpers import LUCENT, verdicts
    plain = answers(LUCENT / "compositional_spurious.lus")
    assert plain == {"Abs[L11C7].nonneg": "valid", "equal on positives": "valid", "zero": "falsifiable"}
    comp = verdicts(LUCENT / "compositional_spurious.lus", compositional=True)
    # Abs's contract (y >= 0) is too weak for this property: as in Kind 2, the abstraction's
    # counterexample is the answer, and kinduct says that Abs's body does not give it
    eq = comp["equal on positives"]
    assert eq.answer.value == "falsifiable"
    assert eq.on_implementations is False
    zero = comp["zero"]  # b = 3 for a = 3: the body gives it too
    assert zero.answer.value == "falsifiable"
    assert zero.on_implementations is (abs(zero.trace.steps[-1]["a"]) == 3)


def test_frame_last_and_array_update(tmp_path):
    src = write(tmp_path, """
node Acc(inc: bool; i: int) returns (total: int; a: int^3);
let
  frame (total)
  total = 0;
  let
    if inc then
      total = last total + 1;
    fi
  tel
  a = [0, 0, 0][i := total];
tel
""")
    steps = [{"inc": True, "i": 0}, {"inc": False, "i": 2}, {"inc": True, "i": 1}]
    rows = simulate(src, steps)
    assert [r["total"] for r in rows] == [1, 1, 2]
    assert [r["a"] for r in rows] == [[1, 0, 0], [0, 0, 1], [0, 2, 0]]


def test_mode_references_and_weak_guarantees(tmp_path):
    src = write(tmp_path, """
node Clamp(x: int) returns (y: int);
con
  mode low ( require x < 0; ensure y = 0; );
  mode high ( require not ::low; ensure y = x; );
  guarantee weakly "nonneg" y >= 0;
noc
let
  y = if x < 0 then 0 else x;
tel
""")
    got = answers(src)
    assert got["nonneg"] == "valid"
    assert got["_one_mode_active"] == "valid"
    assert sorted(v for k, v in got.items() if ".ensure" in k) == ["valid", "valid"]
