"""Polymorphic datatypes and type declarations (``datatype Opt<T> = …``, ``type Pair<T; U> =
…``), monomorphised per application; constructors typed by their arguments, by annotation
(``Absent@<int>``) or by the expected type; polymorphic record literals and contracts;
refinement types on a datatype's fields.  Kind 2 v3.0.0 has no datatypes: the expected answers
follow the primer (polymorphic types and contracts were compared with Kind 2 v3.0.0)."""

from __future__ import annotations

import json

import pytest

from kinduct.kernel.cli import main
from tests.conftest import ROOT, properties, run_cli, run_json
from tests.frontends.lucent.helpers import answers, write

POLYADT = ROOT / "tests" / "data" / "lucent" / "polyadt.lus"

EXPECTED = {
    # the outputs on, bad: Opt<Nat> and s1, s2: Shape (Circle (r: Nat)) owe their field's
    # refinement only where built by the constructor that has the field
    "SubRange[L36C25]": "valid", "SubRange[L36C58]": "falsifiable",
    "SubRange[L36C73]": "valid", "SubRange[L36C77]": "falsifiable",
    "Selector[L53C36]": "valid", "Selector[L55C45]": "valid", "Selector[L62C35]": "valid",
    "Hold[L49C7].Delay[L24C13].delay": "valid", "HoldB[L50C8].Delay[L30C13].delay": "valid",
    "by_arg": "valid", "match": "valid", "selector": "valid", "nested": "valid",
    "nested_eq": "valid", "record": "valid", "pair": "valid", "bump": "valid", "pre": "valid",
    "assumed": "valid", "wrong": "falsifiable", "wrong_nat": "falsifiable",
}


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_polymorphic_types_on_both_backends(solver):
    _, objects = run_json("check", POLYADT, "--solver", solver, "--timeout", "60")
    assert {n: o["answer"]["value"] for n, o in properties(objects).items()} == EXPECTED


def test_counterexample_prints_instances_in_lucent_syntax(tmp_path):
    model = write(tmp_path, """
datatype Opt<T> = Absent | Present (val: T);
node N(o: Opt<Opt<int>>) returns ();
let
  check "absent" Absent?(o) or Absent?(o.val);
tel
""")
    proc = run_cli("check", model, "--json")
    props = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    (prop,) = [p for p in props if p["name"] == "absent"]
    assert prop["answer"]["value"] == "falsifiable"
    (value,) = [s["instantValues"][0][1] for s in prop["counterExample"][0]["streams"]
                if s["name"] == "o"]
    assert value.startswith("Present(Present(") and value.endswith("))")


def test_polymorphic_node_over_a_polymorphic_datatype(tmp_path):
    """The type argument of a polymorphic node is inferred through a datatype's instance;
    one never called is analysed with an abstract type."""
    model = write(tmp_path, """
datatype Opt<T> = Absent | Present (val: T);
function Or<T>(o: Opt<T>; d: T) returns (v: T);
let
  v = match o with | Present(x) : x | Absent : d end;
  check "keeps" Present?(o) ==> v = o.val;
tel
function Lift<T>(x: T) returns (o: Opt<T>);
let
  o = Present(x);
  check "lifted" o.val = x;
tel
node N(i: int; r: real) returns (a, a2: int; b: real);
let
  a = Or(Absent@<int>, i);
  a2 = Or@<int>(Absent, i);  -- typed by the instance's input
  check "a2" a2 = i;
  b = Or(Present(r), 0.0);
  check "a" a = i;
  check "b" b = r;
tel
""")
    got = answers(model)
    assert {k: got[k] for k in ("a", "a2", "b")} == {"a": "valid", "a2": "valid", "b": "valid"}
    assert set(got.values()) == {"valid"}, got


def test_expected_type_reaches_nested_and_compared_constructors(tmp_path):
    model = write(tmp_path, """
datatype Opt<T> = Absent | Present (val: T);
datatype Either<L; R> = Left (l: L) | Right (r: R);
node N(x: int) returns (e: Either<int; bool>; ok: bool);
const none: Opt<Opt<int>> = Present(Absent);
let
  e = if x > 0 then Left(x) else Right(false);
  ok = Absent = none.val and Absent <> Present(x) and Right(true) <> e;
  check "ok" ok;
tel
""")
    assert answers(model) == {"ok": "valid", "Selector[L8C17]": "valid"}


@pytest.mark.parametrize("snippet, where, message", [
    ("node N() returns (b: bool);\nlet b = Absent?(Absent); tel", "3:17",
     "'Absent' requires an explicit annotation; type variable T cannot be inferred bottom-up"),
    ("function F<T>(o: Opt<T>; d: T) returns (v: T);\nlet v = d; tel\n"
     "node N() returns (v: int);\nlet v = F(Absent, 1); tel", "5:11",
     "type variable T cannot be inferred bottom-up"),
    ("function F(o: Opt<int>) returns (b: bool);\nlet b = Absent?(o); tel\n"
     "node N() returns (b: bool);\nlet b = F(Absent) and F(Present(true)); tel", "5:33",
     "type mismatch: expected int, got bool"),
    ("node N(x: Opt) returns ();\nlet tel", "2:11", "type Opt needs type arguments"),
    ("node N(x: Opt<int; bool>) returns ();\nlet tel", "2:11",
     "type Opt has 1 type parameter(s), 2 given"),
    ("type Nat = int;\nnode N(x: Nat<int>) returns ();\nlet tel", "3:11",
     "type 'Nat' takes no type arguments"),
    ("node N(x: Opt<int>) returns (y: Opt<bool>);\nlet y = x; tel", "3:9",
     "the left side has type Opt<bool>, the right side Opt<int>"),
    ("node N() returns (y: Opt<int>);\nlet y = Present(true); tel", "3:17",
     "type mismatch: expected int, got bool"),
    ("node N() returns (y: Opt<int>);\nlet y = Present@<int, int>(1); tel", "3:9",
     "datatype Opt has 1 type parameter(s), 2 given"),
    ("datatype L<T> = Nil | Cons (hd: T, tl: L<T>);\nnode N(x: L<set<int>>) returns ();\n"
     "let tel", "2:33", "unsupported: a field of type set<int> in the recursive datatype"),
    ("contract C<T>(x: T) returns ();\nlet tel\nnode N() returns ();\n"
     "(*@contract import C() returns (); *)\nlet tel", "5:13",
     "contract C expects 1 inputs"),
    ("type P<T> = struct { f: T };\nnode N() returns (p: P<int>);\nlet p = P { f = Absent }; "
     "tel", "4:17", "'Absent' requires an explicit annotation"),
])
def test_bad_polymorphic_types_are_located_errors(tmp_path, capsys, snippet, where, message):
    model = write(tmp_path, "datatype Opt<T> = Absent | Present (val: T);\n" + snippet)
    code = main(["check", str(model)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert f"m.lus:{where}: error: " in err and message in err, err
    assert "Traceback" not in err


def test_match_cases_and_lazy_branches_share_their_type(tmp_path):
    """A case or lazy branch takes the type the context expects, or the first one's."""
    model = write(tmp_path, """
datatype Opt<T> = Absent | Present (val: T);
node N(o: Opt<int>; c: bool) returns (p, q: Opt<int>);
let
  p = match o with | Present(x) : Present(x + 1) | Absent : Absent end;
  q = when c then Absent else o;
  check "p" Present?(o) = Present?(p);
  check "q" c => Absent?(q);
tel
""")
    assert answers(model) == {"p": "valid", "q": "valid"}


def test_primer_pair_swap(tmp_path):
    """The primer's polymorphic type: an input of tuple type takes a tuple argument."""
    model = write(tmp_path, """
type Pair<T; U> = [T, U];
node Swap<T; U>(x: Pair<T; U>) returns (y: Pair<U; T>);
let
  y = '(x[1], x[0]);
tel
function F(p: [int, bool]) returns (q: int);
let
  q = if p[1] then p[0] else 0;
tel
node Top(a: int; b: bool) returns (q: Pair<bool; int>; r: int);
var p: Pair<int; bool>;
let
  p = '(a, b);
  q = Swap(p);
  r = F('(a, b));
  check "swapped" q[0] = b and q[1] = a;
  check "wrong" r = a;
tel
""")
    assert answers(model) == {"swapped": "valid", "wrong": "falsifiable"}
