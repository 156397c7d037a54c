"""Kind 2 forms the Lucent frontend once refused (issue 14): ``tel.``, record and tuple updates
(``r[f := v; g := w]``, ``p[1 := v]``), ghost variables and a frame block's initial values
assigned together, modes referred to before their declaration, circular definitions that are
none once node calls are followed output by output, inductive definitions across arrays, and
Kind 2's annotations in block comments (``(*%PROPERTY e; *)``, ``(*!MAIN: true; *)``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.verdict import Trace
from tests.conftest import properties, run_cli
from tests.frontends.lucent.helpers import answers, write

MODEL = Path(__file__).resolve().parents[2] / "data" / "lucent" / "syntax_gaps.lus"

EXPECTED = {
    "Spec[L58C8].ghosts": "valid", "Spec[L58C8].pos.ensure[L25C28]": "valid",
    "Spec[L58C8].pos[L25C3]": "reachable", "Spec[L58C8].big[L26C3]": "reachable",
    "record_update": "valid", "record_updates_in_order": "valid", "tuple_update": "valid",
    "call_cycle_broken": "valid", "call_cycle_false": "falsifiable", "tuple_outputs": "valid",
    "frame_initial_values": "valid", "frame_initial_false": "falsifiable",
    "inductive_arrays": "valid", "inductive_arrays_false": "falsifiable",
}


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_syntax_gaps_on_both_backends(solver):
    """The verdicts agree with Kind 2 v3.0.0's on the node's own properties; the
    counterexamples replay on the simulator (through the untangled call and array cycles)."""
    proc = run_cli("check", MODEL, "--json", "--solver", solver, "--timeout", "60")
    assert "Traceback" not in proc.stderr, proc.stderr
    got = {k: v["answer"]["value"] for k, v in properties(json.loads(proc.stdout)).items()}
    assert got == EXPECTED
    assert proc.returncode == 40


REFUSED = {
    "circular mode references": (
        "node N(i: int) returns (o: int);\n(*@contract\n  mode a (require ::b;);\n"
        "  mode b (require ::a;);\n*)\nlet\n  o = i;\ntel\n", "circular mode definitions"),
    "unknown mode": ("node N(i: int) returns (o: int);\n(*@contract\n  mode a (require ::c;);\n*)\n"
                     "let\n  o = i;\ntel\n", "unknown mode 'c'"),
    "record update by an expression": (
        "type R = struct { f: int };\nnode N(r: R; i: int) returns (o: R);\nlet\n"
        "  o = r[i + 1 := 2];\ntel\n", "updated field by field"),
    "record update of no field": (
        "type R = struct { f: int };\nnode N(r: R) returns (o: R);\nlet\n  o = r[g := 2];\ntel\n",
        "has no field 'g'"),
    "record update of the wrong type": (
        "type R = struct { f: int };\nnode N(r: R) returns (o: R);\nlet\n  o = r[f := true];\n"
        "tel\n", "type mismatch"),
    "tuple update at a variable index": (
        "node N(p: [int, int]; i: int) returns (o: [int, int]);\nlet\n  o = p[i := 2];\ntel\n",
        "component by component"),
    "tuple update out of range": (
        "node N(p: [int, int]) returns (o: [int, int]);\nlet\n  o = p[2 := 2];\ntel\n",
        "out of range"),
    "ghost variables of the wrong types": (
        "node N(i: int) returns (o: int);\n(*@contract\n  var g, h: int = (i, true);\n"
        "  guarantee g = h;\n*)\nlet\n  o = i;\ntel\n", "type mismatch"),
    "frame initial values beside an array element": (
        "node N(i: int) returns (a: int^2; b: int);\nlet\n  frame (a, b)\n"
        "  a[k], b = (i^2, 0);\n  let\n  tel\ntel\n", "cannot be initialised together"),
    "a real cycle through a call": (
        "node Id(x: int) returns (y: int);\nlet\n  y = x;\ntel\n"
        "node N(i: int) returns (a, b: int);\nlet\n  a = Id(b);\n  b = Id(a);\ntel\n",
        "circular definition"),
    "a real cycle through one output of a call": (
        "node Two(x, z: int) returns (p, q: int);\nlet\n  p = x;\n  q = 0 -> pre z;\ntel\n"
        "node N(i: int) returns (a, b: int);\nlet\n  (a, b) = Two(a, i);\ntel\n",
        "circular definition"),
    "a local named like a global constant": (
        "const c: bool = true;\nnode N(x: int) returns (y: int);\nvar c: int;\nlet\n  c = x;\n"
        "  y = c;\ntel.\n", "'c' is already declared as a constant"),
    "a real cycle between array elements": (
        "node N(i: int) returns (A, B: int^3);\nlet\n  A[k] = B[k] + i;\n  B[k] = A[2 - k];\ntel\n",
        "circular definition"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_bad_forms_are_refused_with_a_location(tmp_path, name):
    text, message = REFUSED[name]
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as info:
        load_systems(path, LoadOptions())
    assert f"{path}:" in str(info.value)


def test_tel_with_a_full_stop_and_forward_mode_reference(tmp_path):
    path = write(tmp_path, """
node N(i: int) returns (o: int);
(*@contract
  mode small (require not ::large; ensure o = 0;);
  mode large (require i > 10; ensure o = i;);
*)
let
  o = if i > 10 then i else 0;
tel.
""")
    got = answers(path)
    assert got["small.ensure[L4C36]"] == "valid"
    assert got["large.ensure[L5C31]"] == "valid"
    assert got["_one_mode_active"] == "valid"


def test_replay_checks_the_untangled_equation(tmp_path):
    """A stream that breaks a call cycle takes its value from the trace: a trace where it does
    not satisfy its equation is refused by the simulator."""
    path = write(tmp_path, """
node Delay(x: int) returns (y: int);
let
  y = 0 -> pre x;
tel
node N(k: int) returns (a, b: int);
let
  a = Delay(b);
  b = Delay(a) + k;
  check "p" a = b;
tel
""")
    system = load_systems(path, LoadOptions())[0]
    prop = next(p for p in system.properties if p.name == "p")
    good = Trace(steps=({"k": 1, "a": 0, "b": 1},))
    assert system.replay(good, prop) is None
    bad = Trace(steps=({"k": 1, "a": 5, "b": 1},))
    message = system.replay(bad, prop)
    assert message is not None and "does not hold at step 0" in message


ANNOTATED = """
node A(i: int) returns (x: int);
let
  x = if i < 0 then -i else i;
  (*%PROPERTY x >= 0; *)
  /*!PROPERTY : "named" x = i or x = -i; */
  --!PROPERTY x > 0;
  (* %PROPERTY a comment; *)
  -- !PROPERTY another comment;
tel
node B(i: int) returns (x: int);
let
  x = i;
  --%PROPERTY x = i;
  MAIN_B
tel
"""


@pytest.mark.parametrize("main", ["(*%MAIN; *)", "(*!MAIN: true; *)", "--!MAIN: true;",
                                  "--!MAIN: false;", ""])
def test_annotations_in_block_comments(tmp_path, main):
    """Kind 2 reads ``(*%PROPERTY``, ``(*!PROPERTY:``, ``/*%…*/`` and ``--!PROPERTY`` as
    properties and the same forms of ``MAIN`` as the main node annotation (``: false``: none);
    a space after the comment's opening makes it a comment."""
    path = write(tmp_path, ANNOTATED.replace("MAIN_B", main))
    got = answers(path)
    if main and "false" not in main:
        assert got == {"x = i": "valid"}
    else:
        assert got == {"x >= 0": "valid", "named": "valid", "x > 0": "falsifiable",
                       "x = i": "valid"}


@pytest.mark.parametrize("text", ["(*%PROPERTY x >= 0 *)", "(*%PROPERTY x >= 0; x > 1; *)",
                                  "--!PROPERTY: x >= 0;", "(*%PROPERTY x >= 0;"])
def test_malformed_block_annotations_are_refused(tmp_path, text):
    path = write(tmp_path, f"node A(i: int) returns (x: int);\nlet\n  x = i;\n  {text}\ntel\n")
    with pytest.raises(InputError) as info:
        load_systems(path, LoadOptions())
    assert f"{path}:4:" in str(info.value) or f"{path}:5:" in str(info.value)


def test_simulate_refuses_an_untangled_stream(tmp_path):
    """Without a trace, a stream that breaks a call cycle has no value to read: refused."""
    path = write(tmp_path, """
node Delay(x: int) returns (y: int);
let
  y = 0 -> pre x;
tel
node N(k: int) returns (a, b: int);
let
  a = Delay(b);
  b = Delay(a) + k;
tel
""")
    inputs = tmp_path / "in.csv"
    inputs.write_text("k\n1\n2\n")
    proc = run_cli("simulate", path, "--input", inputs)
    assert proc.returncode == 3
    assert "cannot simulate: 'a' is defined circularly (after the first step, or through a " \
           "node call)" in proc.stderr
    assert "Traceback" not in proc.stderr
