"""Sets and maps (the primer's "Sets and Maps"): operators, literals, equality, refinements of
elements, keys and values, on both backends; counterexamples in Lucent syntax that replay on
the simulator; located type errors.  Kind 2 v3.0.0 has no sets or maps: the primer and the
kind2-tests folders are the reference."""

from __future__ import annotations

import json

import pytest

from kinduct.frontends.lucent.core.types import INT, T
from kinduct.frontends.lucent.pipeline import build_system, load_checked
from kinduct.frontends.lucent.sim.collections_sim import Fun, from_trace, key_of
from kinduct.frontends.lucent.sim.simulate import Simulator
from kinduct.kernel import arrays
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer
from tests.conftest import ROOT, run_cli
from tests.frontends.lucent.helpers import answers, cli_refusal, write

MODEL = ROOT / "tests" / "data" / "lucent" / "collections.lus"

VALID = ["union", "inter", "diff", "literal", "update_read", "update_keeps", "restricted_equal",
         "functional_read", "enum_set", "enum_set_eq", "adt_set", "nested", "temporal", "finite",
         "keys", "values", "range", "SubType[L77C71]", "inlined"]
FALSIFIABLE = ["wrong_union", "wrong_missing", "wrong_enum", "SubType[L103C43]",
               "wrong_inlined"]
#: What cvc5 cannot decide (quantified satisfiable queries, a bound to instantiate).
CVC5_UNKNOWN = {"finite", "wrong_union"}


def _verdicts(path, solver: str) -> dict:
    checked = load_checked(path)
    out = {}
    for main in checked.top_nodes():
        system = build_system(checked, main)
        for v in run(system, RunOptions(solver=solver, timeout=30)):
            out[v.property] = v
    return out


@pytest.mark.parametrize("solver", ["z3", pytest.param("cvc5", marks=pytest.mark.slow)])
def test_semantics_on_both_backends(solver):
    got = _verdicts(MODEL, solver)
    for name in VALID + FALSIFIABLE:
        want = "valid" if name in VALID else "falsifiable"
        answer = got[name].answer.value
        if solver == "cvc5" and name in CVC5_UNKNOWN:
            assert answer in (want, "unknown"), (name, answer)
        else:
            assert answer == want, (name, answer, got[name].message)


def test_counterexamples_print_lucent_syntax_and_replay(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (s: set<int>; m: map<int, bool>);
let
  s = {x, x + 1};
  m = map[x := true; 2 := false];
  check "small" not (x + 1 in s and x = 3);
tel
""")
    proc = run_cli("check", model, "--json", "--timeout", "30")
    assert "Traceback" not in proc.stderr, proc.stderr
    props = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    assert props[0]["answer"]["value"] == "falsifiable"
    streams = {s["name"]: s["instantValues"][-1][1]
               for s in props[0]["counterExample"][0]["streams"]}
    assert streams["s"] == "{3, 4}"
    assert streams["m"] == "map[2 := false; 3 := true]"


def test_replay_on_the_simulator_judges_a_trace(tmp_path):
    """A falsified verdict's trace replays; the same trace with the property's value flipped
    does not."""
    model = write(tmp_path, """
node N(s: set<int>; x: int) returns (ok: bool);
let
  ok = x in s + {1};
  check "p" ok;
tel
""")
    checked = load_checked(model)
    system = build_system(checked, "N")
    verdict = run(system, RunOptions(timeout=30))[0]
    assert verdict.answer is Answer.FALSIFIABLE
    prop = system.properties[0]
    assert system.replay(verdict.trace, prop) is None
    step = dict(verdict.trace.steps[0])
    step["s"] = arrays.to_text(arrays.ArrayValue(False, ((step["x"], True),)))
    forged = type(verdict.trace).of([step])
    problem = system.replay(forged, prop)
    assert problem is not None and "on the simulator" in problem, problem


def test_simulator_values(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (s: set<int>; m: map<int, int>; k: bool);
let
  s = {x} -> pre s + {x};
  m = map[]@<int, int>[x := 2 * x];
  k = x in m - {x};
tel
""")
    out = Simulator(load_checked(model), "N").run([{"x": 1}, {"x": 2}])
    assert out[1]["s"] == frozenset({(1,), (2,)})
    assert out[1]["m"]["%dom"] == frozenset({(2,)})
    assert out[1]["m"]["%val"].get((2,)) == 4
    assert out[1]["k"] is False


def test_trace_values_are_read_into_finite_values():
    t = T("set", items=(INT,))
    assert from_trace(arrays.to_text(arrays.ArrayValue(False, ((3, True), (4, False)))), t) \
        == frozenset({(3,)})
    infinite = from_trace(arrays.to_text(arrays.ArrayValue(True, ((3, False),))), t)
    assert infinite == frozenset()  # only its finite part: a replay with it is inconclusive
    f = from_trace(arrays.to_text(arrays.ArrayValue(0, ((1, 5),))), T("lift", items=(INT, INT)))
    assert isinstance(f, Fun) and f.get((1,)) == 5 and f.get((9,)) == 0
    assert key_of([1, 2], T("tuple", items=(INT, INT))) == (1, 2)


@pytest.mark.parametrize("text, message, where", [
    ("s = {}; ", "an empty set literal must be annotated", ":4:7:"),
    ("m = map[]; ", "an empty map literal must be annotated", ":4:7:"),
    ("b = 1 in 2; ", "expected a set or a map, got int", ":4:12:"),
    ("s = {1} + {true}; ", "type mismatch", ":4:13:"),
    ("s = {1} + 1; ", "type mismatch", ":4:13:"),
])
def test_type_errors_are_located(tmp_path, text, message, where):
    model = write(tmp_path, f"""
node N() returns (s: set<int>; m: map<int, int>; b: bool);
let
  {text}
tel
""")
    stderr = cli_refusal(model)
    assert message in stderr and where in stderr, stderr


def test_imported_functions_of_sets_are_functions_of_their_elements(tmp_path):
    model = write(tmp_path, """
function imported F(s: set<int>) returns (r: int);
node N(x: int) returns (r: int);
let
  r = F({1, x});
  check "elements" r = F({x, 1} + {1});
  check "others" r = F({2});
tel
""")
    assert answers(model) == {"elements": "valid", "others": "falsifiable"}


@pytest.mark.parametrize("check, message, where", [
    ("forall (d: D) d in s => d.a > 0", "a quantifier over adt type D", ":5:18:"),
    ("forall (t: set<int>) 1 in t", "a quantifier over set type set<int>", ":5:18:"),
    ("forall (d: D) d in s => pre (d in s)", "a quantifier over adt type D", ":5:18:"),
])
def test_unsupported_quantifiers_are_located(tmp_path, check, message, where):
    """Quantifiers in an assertion (not decided by a witness) that no encoding takes."""
    model = write(tmp_path, f"""
datatype D = A (a: int) | B (b: bool);
node N(s: set<D>) returns ();
let
  assert {check};
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert f"unsupported: {message}" in proc.stderr and where in proc.stderr, proc.stderr
