"""Recursive algebraic datatypes (native SMT datatypes): constructors, testers, selectors
and their obligations, ``match``, equality, mutual and polymorphic recursion, values in
counterexamples and in ``kinduct simulate``, refusals; on both backends.  Kind 2 v3.0.0 has
no datatypes: the expected answers follow the primer and kind2-tests' folders."""

from __future__ import annotations

import json

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel import datatypes as D
from kinduct.kernel.errors import UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.verdict import Trace
from tests.conftest import BENCH, ROOT, properties, run_cli, run_json
from tests.frontends.lucent.helpers import answers, cli_refusal, place, refusal, write

MODEL = ROOT / "tests" / "data" / "lucent" / "recursive_datatypes.lus"
KIND2_TESTS = BENCH / "lustre" / "kind2-tests"

EXPECTED = {
    "Selector[L39C32]": "valid", "Selector[L40C17]": "falsifiable",
    "Selector[L41C28]": "falsifiable", "Selector[L43C39]_1": "valid",
    "Selector[L43C39]_2": "valid", "Selector[L48C16]": "valid",
    "Stack[L29C10].Selector[L19C69]": "valid", "Stack[L29C10].Selector[L21C26]": "valid",
    "Stack[L29C10].Selector[L22C59]": "valid",
    "Stack[L29C10].push[L19C22].Selector[L9C35]": "valid",
    "Stack[L29C10].push[L19C22].Selector[L9C50]": "valid",
    "Stack[L29C10].push[L19C22].pushed": "valid",
    "Stack[L29C10].top": "valid", "Stack[L29C10].pop": "valid",
    "Stack[L29C10].count": "falsifiable",
    # the theory: constructors are injective and distinct, values are finite trees
    "ctor_eq": "valid", "injective": "valid", "distinct": "valid", "acyclic": "valid",
    "cyclic": "falsifiable", "growing": "valid",
    "guarded": "valid", "eager": "falsifiable",
    # falsified only by the choice a selector of another constructor reads
    "junk": "falsifiable",
    "nested_match": "valid", "mutual": "valid", "poly": "valid", "tree_sum": "falsifiable",
}


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_recursive_datatypes_on_both_backends(solver):
    _, objects = run_json("check", MODEL, "--solver", solver, "--timeout", "60")
    assert {n: o["answer"]["value"] for n, o in properties(objects).items()} == EXPECTED


def _cex_value(objects: list[dict], prop: str, stream: str) -> list:
    o = properties(objects)[prop]
    (values,) = [s["instantValues"] for s in o["counterExample"][0]["streams"]
                 if s["name"] == stream]
    return [v for _, v in values]


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_counterexample_prints_nested_trees(tmp_path, solver):
    model = write(tmp_path, """
datatype Tree = Leaf (v: int) | Node (l: Tree, r: Tree);
node N(t: Tree) returns ();
let
  check "sum" match t with | Node(Node(Leaf(a), _), Leaf(b)) : a + b <> 7 | _ : true end;
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "60")
    (value,) = _cex_value(objects, "sum", "t")
    assert value.startswith("Node(Node(Leaf(") and value.endswith("))")
    a = int(value[len("Node(Node(Leaf("):].split(")")[0])
    b = int(value.rsplit("Leaf(", 1)[1].rstrip(")"))
    assert a + b == 7


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_datatype_terms_without_datatype_streams(tmp_path, solver):
    """Only constructor applications, no stream of a datatype: cvc5 still gets a logic with
    datatypes (a wrong logic made it answer unknown)."""
    model = write(tmp_path, """
datatype L = C (h: int, t: L) | N;
node M(x, y: int) returns ();
let
  check "injective" (C(x, N) = C(y, N)) = (x = y);
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "30")
    assert properties(objects)["injective"]["answer"]["value"] == "valid"


def test_cyclic_value_is_no_value(tmp_path):
    """``m = Enc(m, m)`` has no finite solution: the property fails at every step."""
    model = write(tmp_path, """
datatype Msg = Atom (s: int) | Enc (a: Msg, b: Msg);
node N(m: Msg) returns ();
let
  check "self" m = Enc(m, m);
  check "not_self" m <> Enc(m, m) and m <> Enc(Atom(0), m);
tel
""")
    assert answers(model) == {"self": "falsifiable", "not_self": "valid"}


def test_kind2_tests_recursive_models():
    """kind2-tests' models of recursive datatypes (read in place): the folder's outcome."""
    files = sorted((KIND2_TESTS / "success").glob("msg_*.lus")) + \
        sorted((KIND2_TESTS / "success").glob("adt_recursive_*.lus"))
    if not files:
        pytest.skip("kind2-tests not available")
    for path in files:
        assert set(answers(path).values()) == {"valid"}, path.name
    for path in sorted((KIND2_TESTS / "falsifiable").glob("msg_*.lus")):
        assert "falsifiable" in answers(path).values(), path.name


def test_engines_on_datatype_state(tmp_path):
    """bmc and k-induction decide; invgen proves what holds beside datatype state and never
    'bad'; ic3 declines datatype state."""
    model = write(tmp_path, """
datatype L = C (h: int, t: L) | N;
node M(x: int) returns (l: L);
let
  l = N -> C(x, pre l);
  check "grows" true -> l <> pre l;
  check "bad" N?(l);
tel
""")
    for engine, want in [("bmc", {"bad": "falsifiable"}), ("kind", {"grows": "valid",
                                                                       "bad": "falsifiable"})]:
        # bmc never proves 'grows': asked only about 'bad'
        only = ["--property", "bad"] if engine == "bmc" else []
        _, objects = run_json("check", model, "--engine", engine, "--timeout", "30", *only)
        got = {n: o["answer"]["value"] for n, o in properties(objects).items()}
        assert {k: got[k] for k in want} == want
    for engine, proved in (("ic3", set()), ("invgen", {"grows"})):
        proc = run_cli("check", model, "--engine", engine, "--timeout", "30", "--json")
        assert "Traceback" not in proc.stderr
        objects = json.loads(proc.stdout)
        assert {n for n, o in properties(objects).items()
                if o["answer"]["value"] == "valid"} == proved


def test_simulate_reads_and_prints_lucent_syntax(tmp_path):
    model = write(tmp_path, """
datatype Tree = Leaf (v: int) | Node (l: Tree, r: Tree);
node N(t: Tree) returns (s: int; u: Tree);
let
  s = match t with | Leaf(x) : x | Node(Leaf(a), Leaf(b)) : a + b | Node(_, _) : -1 end;
  u = t -> Node(t, pre u);
tel
""")
    inputs = tmp_path / "in.csv"
    inputs.write_text('t\n"Node(Leaf(3), Leaf(-1))"\nLeaf(2)\n')
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    values = {s["name"]: [v for _, v in s["instantValues"]] for s in block["streams"]}
    assert values["s"] == [2, 2]
    assert values["u"] == ["Node(Leaf(3), Leaf(-1))", "Node(Leaf(2), Node(Leaf(3), Leaf(-1)))"]
    inputs.write_text('t\n"Node(Leaf(3))"\n')
    proc = run_cli("simulate", model, "--input", inputs)
    assert proc.returncode == 3 and "expected a value of type Tree" in proc.stderr


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_fields_of_records_tuples_and_arrays(tmp_path, solver):
    """One native field per leaf: equality, selectors and patterns read them all; the
    counterexample shows the fields in Lucent syntax, and simulate reads them."""
    model = write(tmp_path, """
type P = struct { a: int; b: bool };
datatype T = Leaf (p: P) | Node (kids: T^2, w: [int, real]);
node M(t: T) returns (s: int);
let
  s = match t with | Leaf(p) : p.a | Node(k, w) : w[0] end;
  check "leaf" match t with | Leaf(p) : p.a <> 3 or not p.b | Node(_, _) : true end;
  check "neq" Node([t, t], '(1, 0.5)) <> Node([t, t], '(1, 1.5));
  check "acyclic" t <> Node([t, t], '(1, 0.5)) and t <> Node([Leaf(t.kids[0].p), t], t.w);
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "60")
    got = {n: o["answer"]["value"] for n, o in properties(objects).items()}
    assert {k: got[k] for k in ("leaf", "neq", "acyclic")} == {
        "leaf": "falsifiable", "neq": "valid", "acyclic": "valid"}
    assert _cex_value(objects, "leaf", "t") == ["Leaf({a = 3; b = true})"]
    inputs = tmp_path / "in.csv"
    inputs.write_text('t\n"Node([Leaf({a = 1; b = true}), Leaf({a = 2; b = false})], [3, 1/2])"\n')
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    values = {s["name"]: [v for _, v in s["instantValues"]] for s in block["streams"]}
    assert values["s"] == [3]
    assert values["t"] == ["Node([Leaf({a = 1; b = true}), Leaf({a = 2; b = false})], [3, 0.5])"]


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_enumeration_fields_are_native_enumerations(tmp_path, solver):
    """An enumeration's field is a native enumeration: every subtree's value is in range."""
    model = write(tmp_path, """
type Color = enum { Red, Green, Blue };
datatype L = C (h: Color, t: L) | N;
node M(l: L; c: Color) returns (o: L);
let
  o = C(c, l);
  check "sel" o.h = c;
  check "range" match l with | C(_, C(x, _)) : x = Red or x = Green or x = Blue | _ : true end;
  check "bad" match l with | C(x, C(y, _)) : x = y or x = Blue | _ : true end;
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "60")
    got = {n: o["answer"]["value"] for n, o in properties(objects).items()}
    assert {k: got[k] for k in ("sel", "range", "bad")} == {
        "sel": "valid", "range": "valid", "bad": "falsifiable"}
    (value,) = _cex_value(objects, "bad", "l")
    assert value.startswith("C(") and "Blue" not in value.split(",")[0]


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_datatype_fields_are_native_datatypes(tmp_path, solver):
    """A non-recursive datatype's field is a native datatype: equality compares the tag's
    constructor's fields; its enumeration fields stay in range; simulate reads it."""
    model = write(tmp_path, """
type Color = enum { Red, Green };
datatype Opt = Some (v: int, c: Color) | None;
datatype L = C (h: Opt, t: L) | N;
node M(l: L; o: Opt) returns (r: L);
let
  r = C(o, l);
  check "sel" r.h = o;
  check "eq" C(None, N) <> C(Some(1, Red), N) and C(Some(1, Red), N) <> C(Some(1, Green), N);
  check "range" match l with | C(Some(_, c), _) : c = Red or c = Green | _ : true end;
  check "bad" match l with | C(Some(x, _), _) : x <> 3 | _ : true end;
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "60")
    got = {n: o["answer"]["value"] for n, o in properties(objects).items()}
    assert {k: got[k] for k in ("sel", "eq", "range", "bad")} == {
        "sel": "valid", "eq": "valid", "range": "valid", "bad": "falsifiable"}
    (value,) = _cex_value(objects, "bad", "l")
    assert value.startswith("C(Some(3, ")
    inputs = tmp_path / "in.csv"
    inputs.write_text('l,o\n"C(Some(2, Green), N)",None\n')
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    values = {s["name"]: [v for _, v in s["instantValues"]] for s in block["streams"]}
    assert values["r"] == ["C(None, C(Some(2, Green), N))"]


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_values_read_out_of_trees_replay(tmp_path, solver):
    """A datatype value read out of a tree has choices as its other constructors' fields
    (named by the read): a stream holding it replays (the solver's selectors of another
    constructor are not the simulator's defaults)."""
    model = write(tmp_path, """
datatype Opt = Some (v: int) | None;
datatype L = C (h: Opt, t: L) | N;
node M(l: L) returns (o: Opt);
let
  o = match l with | C(x, _) : x | N : Some(7) end;
  check "p" not C?(l) or Some?(o);
  check "q" not Some?(o) or o.v <> 4;
tel
""")
    _, objects = run_json("check", model, "--solver", solver, "--timeout", "60")
    got = {n: o["answer"]["value"] for n, o in properties(objects).items()}
    assert (got["p"], got["q"]) == ("falsifiable", "falsifiable")
    assert _cex_value(objects, "p", "o") == ["None"]


@pytest.mark.parametrize("text, where, message", [
    ("datatype L = C (h: int, t: L) | N;\ndatatype O = S (v: L) | Z;\n"
     "datatype M = K (o: O, m: M) | E;\nnode F() returns ();\nlet tel", (4, 20),
     "a field of type O in the recursive datatype M"),
    ("type Nat = subtype { n: int | n >= 0 };\ndatatype L = C (h: Nat, t: L) | N;\n"
     "node M() returns ();\nlet tel", (3, 20), "a refinement type on a field"),
    ("datatype L = C (h: int, t: L) | N;\nnode M() returns ();\nvar s: set<L>;\nlet s = {N}; tel",
     (4, 8), "sets and maps of recursive datatypes"),
    ("type Nat = subtype { n: int | n >= 0 };\ndatatype L<T> = C (h: T, t: L<T>) | N;\n"
     "node M(a: L<int>; b: L<Nat>) returns ();\nlet tel", (3, 23),
     "a refinement type as the type argument T"),
])
def test_unsupported_recursive_datatypes_are_located(tmp_path, text, where, message):
    e = refusal(write(tmp_path, "\n" + text), UnsupportedError)
    assert place(e) == where and message in str(e)


def test_datatype_without_finite_values_is_an_error(tmp_path):
    stderr = cli_refusal(write(tmp_path, "datatype S = More (h: int, t: S);\n"
                                         "node M() returns ();\nlet tel"))
    assert "m.lus:1:1:" in stderr and "has no finite value" in stderr


def test_replay_compares_trees(tmp_path):
    """The simulator replays a trace's trees: a stream's wrong tree is refused."""
    system = load_systems(write(tmp_path, """
datatype L = C (h: int, t: L) | N;
node M(l: L) returns (r: L);
let
  r = C(1, l);
  check "p" N?(l);
tel
"""), LoadOptions())[0]
    prop = next(p for p in system.properties if p.name == "p")
    leaf = D.to_text(D.Tree("C", (0, D.Tree("N"))))
    good = Trace(steps=({"l": leaf, "r": D.to_text(D.Tree("C", (1, D.from_text(leaf))))},))
    assert system.replay(good, prop) is None
    bad = Trace(steps=({"l": leaf, "r": D.to_text(D.Tree("C", (1, D.Tree("N"))))},))
    message = system.replay(bad, prop)
    assert message is not None and "stream r is C(1, C(0, N))" in message
