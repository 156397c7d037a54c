"""Algebraic datatypes (non-recursive, monomorphic; recursive ones are in
test_lucent_recursive_adt): constructors, testers, selectors and their obligations,
``match`` (lazy, exhaustive), equality, and values in counterexamples, on both backends.
Kind 2 v3.0.0 has no datatypes: the expected answers follow the primer."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, properties, run_cli, run_json
from tests.frontends.lucent.helpers import answers, write

DATATYPES = ROOT / "tests" / "data" / "lucent" / "datatypes.lus"

EXPECTED = {
    # a selector owes its constructor's tester where it is evaluated: guarded by a lazy
    # operator it holds, under the eager '=>' and 'if' it does not
    "Selector[L25C8]": "valid", "Selector[L28C44]": "falsifiable",
    "Selector[L28C54]": "falsifiable", "Selector[L29C47]": "falsifiable",
    "Selector[L29C57]": "falsifiable", "Selector[L33C34]": "falsifiable",
    "Unwrap[L22C7].Selector[L9C26]": "valid", "Eager[L23C7].Selector[L14C24]": "falsifiable",
    "ctor_eq": "valid", "tag_eq": "valid", "field_eq": "valid", "eq_wrong": "falsifiable",
    "match_k": "valid", "dot_eq": "valid", "pre": "valid", "unwrap": "valid",
    "record": "valid", "wrong_tester": "falsifiable",
}


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_datatype_semantics_on_both_backends(solver):
    _, objects = run_json("check", DATATYPES, "--solver", solver, "--timeout", "60")
    assert {n: o["answer"]["value"] for n, o in properties(objects).items()} == EXPECTED



def test_match_cases_are_lazy(tmp_path):
    """A case's '->' and 'pre' count the steps where that case is selected."""
    model = write(tmp_path, """
datatype Flag = F | T;
node N(m: Flag) returns (c: int);
let
  c = match m with | T : 0 -> pre c + 1 | F : -100 end;
  check "counts_T_steps" T?(m) => c >= 0;
tel
""")
    assert answers(model) == {"counts_T_steps": "valid"}


def test_nested_patterns_and_bindings(tmp_path):
    model = write(tmp_path, """
datatype Inner = Leaf | Val (v: int);
datatype Outer = Wrap (i: Inner, n: int) | Empty;
node N(o: Outer) returns (r: int);
let
  r = match o with
    | Wrap(Val(x), n) : x + n
    | Wrap(Leaf, n) : n
    | Empty : 0
  end;
  check "sum" Wrap?(o) ==> (Val?(o.i) ==> r = o.i.v + o.n);
  check "empty" Empty?(o) => r = 0;
tel
""")
    got = answers(model)
    assert got.pop("sum") == "valid" and got.pop("empty") == "valid"
    assert set(got.values()) == {"valid"}  # the guarded selectors' obligations


def test_counterexample_prints_values_in_lucent_syntax(tmp_path):
    model = write(tmp_path, """
datatype Shape = Circle (radius: int) | Dot;
node N(s: Shape) returns ();
let
  check "dot" Dot?(s);
tel
""")
    proc = run_cli("check", model, "--json")
    (prop,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    (value,) = [s["instantValues"][0][1] for s in prop["counterExample"][0]["streams"]
                if s["name"] == "s"]
    assert value.startswith("Circle(") and value.endswith(")")


@pytest.mark.parametrize("text, message", [
    ("datatype L = Cons (hd: int, tl: L);\nnode N() returns ();\nlet tel",
     "datatype L has no finite value"),
    ("datatype D = A | B;\nnode N(d: D) returns (x: int);\nlet x = match d with | A : 1 end; tel",
     "this match is not exhaustive"),
    ("datatype D = A (x: int) | B;\nnode N(d: D) returns (x: int);\nlet x = match d with "
     "| A : 1 | B : 2 end; tel", "constructor 'A' has 1 field(s), the pattern 0"),
    ("datatype D = A | B;\ndatatype E = A;\nnode N() returns ();\nlet tel",
     "'A' is declared twice"),
    ("datatype D = A (x: int) | B;\nnode N() returns (y: D);\nlet y = A(true); tel",
     "type mismatch: expected int, got bool"),
    ("datatype D = A (x: int) | B;\nnode N(d: D) returns (y: int);\nlet y = d.z; tel",
     "datatype D has no field 'z'"),
])
def test_bad_datatype_models_are_located_errors(tmp_path, text, message):
    proc = run_cli("check", write(tmp_path, text))
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "m.lus:" in proc.stderr and message in proc.stderr, proc.stderr
