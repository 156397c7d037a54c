"""``kinduct simulate``'s inputs: Kind 2's interpreter JSON (checked against Kind 2 itself), a
``check --json`` counterexample fed back, ``--steps`` for nodes without inputs, and malformed
files as located input errors (exit 3)."""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli, run_here
from tests.frontends.lucent.helpers import LUCENT

TYPED = """\
type Color = enum { Red, Green, Blue };
type Pt = struct { x: real; y: int };
node T(r: real; p: Pt; c: Color; a: int^2) returns (s: real; q: int; g: bool; m: int);
let
  s = r + p.x -> pre s + r;
  q = p.y + a[0] + a[1];
  g = (c = Green);
  m = if c = Blue then 1 else 0;
tel
"""

#: Kind 2's interpreter input: numbers as strings, Kind 2's "1.0/2.0" reals, records as
#: objects, arrays as lists, enumeration constants by name.
KIND2_INPUT = [
    {"r": "1.0/2.0", "p": {"x": "0.25", "y": "3"}, "c": "Green", "a": [1, 2]},
    {"r": 0.5, "p": {"x": 1, "y": -4}, "c": "Blue", "a": ["7", 8]},
    {"r": "-3", "p": {"x": "1/3", "y": 0}, "c": "Red", "a": [0, 0]},
]

#: The outputs, by hand: s = 1/2 + 1/4, then + 1/2, then - 3; q = y + a[0] + a[1].
EXPECTED = {"s": [Fraction(3, 4), Fraction(5, 4), Fraction(-7, 4)], "q": [6, 11, 0],
            "g": [True, False, False], "m": [0, 1, 0]}


def _number(v):
    if isinstance(v, dict) and set(v) == {"num", "den"}:
        return Fraction(v["num"], v["den"])
    return v


def _outputs(blocks: list[dict], names) -> dict[str, list]:
    (block,) = [b for b in blocks if b.get("blockType", "node") == "node"][:1]
    streams = {s["name"]: s["instantValues"] for s in block["streams"]}
    return {n: [_number(v) for _, v in streams[n]] for n in names}


@pytest.fixture
def typed(tmp_path):
    model = tmp_path / "typed.lus"
    model.write_text(TYPED)
    inputs = tmp_path / "typed.json"
    inputs.write_text(json.dumps(KIND2_INPUT, indent=2))
    return model, inputs


def test_kind2_interpreter_input(typed):
    model, inputs = typed
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    assert _outputs(json.loads(proc.stdout), EXPECTED) == EXPECTED


def test_kind2_interpreter_agrees(typed, kind2):
    """Kind 2's interpreter on the same file computes the same outputs."""
    model, inputs = typed
    proc = subprocess.run([kind2, "--enable", "interpreter", "--interpreter_input_file",
                           str(inputs), "-json", str(model)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout
    (execution,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "execution"]
    assert _outputs(execution["trace"], EXPECTED) == EXPECTED


def test_steps_takes_a_prefix(typed):
    model, inputs = typed
    proc = run_cli("simulate", model, "--input", inputs, "--json", "--steps", "2")
    assert proc.returncode == 0, proc.stderr
    assert _outputs(json.loads(proc.stdout), ["q"]) == {"q": [6, 11]}
    proc = run_cli("simulate", model, "--input", inputs, "--steps", "4")
    assert proc.returncode == 3
    assert "3 step(s)" in proc.stderr and "Traceback" not in proc.stderr


def test_a_counterexample_is_fed_back(tmp_path):
    """``check --json``'s counterexample as the input: the simulation computes its outputs."""
    out = run_cli("check", LUCENT / "combine.lus", "--json")
    assert out.returncode == 40, out.stderr
    cex_file = tmp_path / "cex.json"
    cex_file.write_text(out.stdout)
    cex = next(o["counterExample"] for o in json.loads(out.stdout)
               if o.get("objectType") == "property" and o.get("counterExample"))
    proc = run_cli("simulate", LUCENT / "combine.lus", "--input", cex_file, "--json")
    assert proc.returncode == 0, proc.stderr
    names = ["x", "y", "z"]
    assert _outputs(json.loads(proc.stdout), names) == _outputs(cex, names)


def test_steps_for_a_node_without_inputs(tmp_path):
    model = tmp_path / "count.lus"
    model.write_text("node N() returns (c: int);\nlet\n  c = 0 -> pre c + 2;\ntel\n")
    proc = run_cli("simulate", model, "--steps", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    assert _outputs(json.loads(proc.stdout), ["c"]) == {"c": [0, 2, 4, 6]}
    proc = run_cli("simulate", model)
    assert proc.returncode == 2 and "--steps N" in proc.stderr
    proc = run_cli("simulate", model, "--steps", "0")
    assert proc.returncode == 2
    proc = run_cli("simulate", LUCENT / "combine.lus", "--steps", "3")
    assert proc.returncode == 2 and "--input" in proc.stderr


@pytest.mark.parametrize(("text", "line", "column", "says"), [
    ('{"steps": 6}', 1, 11, "no list"),
    ("[1, 2, 3]", 1, 2, "expected an object of input values"),
    ('"x"', 1, 1, "expected a list of steps"),
    ('[\n  {"x": 1, "y": 2},\n  {"x": 1}\n]', 3, 3, "no value for input 'y'"),
    ('{"x": [1, 2], "y": [3, "b"]}', 1, 24, "expected a value of type int, got 'b'"),
    ('[{"x": 1, "y": true}]', 1, 16, "expected a value of type int"),
    ('[{"x": 1,}]', 1, 10, "invalid JSON"),
    ('[{"objectType": "analysisStart"}]', 1, 1, "no counterexample"),
    ("[" * 100_000 + "]" * 100_000, 1, 1, "nested too deeply"),
    ('\ufeff[{"x": 1, "y": true}]', 1, 17, "expected a value of type int"),
    ('[{"blockType": "node", "name": "Combine", "streams": [{"name": "x", '
     '"instantValues": [[0]]}]}]', 1, 87, "instant value"),
])
def test_malformed_input_is_a_located_error(tmp_path, text, line, column, says):
    inputs = tmp_path / "in.json"
    inputs.write_text(text)
    proc = run_here("simulate", LUCENT / "combine.lus", "--input", inputs)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    head = proc.stderr.splitlines()[0]
    assert re.search(rf"in\.json:{line}:{column}: error: .*{re.escape(says)}", head), proc.stderr
    assert proc.stderr.rstrip().endswith("^"), proc.stderr


def test_csv_errors_are_located(tmp_path):
    inputs = tmp_path / "in.csv"
    inputs.write_text("x,y\n1,2\n3,oops\n")
    proc = run_here("simulate", LUCENT / "combine.lus", "--input", inputs)
    assert proc.returncode == 3
    assert re.search(r"in\.csv:3:3: error: .*got 'oops'", proc.stderr), proc.stderr


def test_kind2_interpreter_spelling(typed):
    """``kind2 --enable interpreter --interpreter_input_file F --interpreter_steps N``."""
    model, inputs = typed
    proc = run_cli(model, "--enable", "interpreter", "--interpreter_input_file", inputs,
                   "--interpreter_steps", "2", "-json")
    assert proc.returncode == 0, proc.stderr
    assert _outputs(json.loads(proc.stdout), ["q"]) == {"q": [6, 11]}
    proc = run_cli(model, "--enable", "interpreter", "--testgen", "true")
    assert proc.returncode == 2


def test_kind2_interpreter_output_is_read_back(typed, kind2, tmp_path):
    """Kind 2's interpreter output (an ``execution`` object; records as flattened streams
    ``p.x``, ``p.y``) as the input: the same outputs again."""
    model, inputs = typed
    proc = subprocess.run([kind2, "--enable", "interpreter", "--interpreter_input_file",
                           str(inputs), "-json", str(model)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout
    again = tmp_path / "execution.json"
    again.write_text(proc.stdout)
    assert '"p.x"' in proc.stdout  # Kind 2 wrote the record field by field
    out = run_cli("simulate", model, "--input", again, "--json")
    assert out.returncode == 0, out.stderr
    assert _outputs(json.loads(out.stdout), EXPECTED) == EXPECTED


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["x", "y", "r", "p", "c", "a", "streams", "name", "instantValues",
                         "counterExample", "trace", "objectType", "0", "1"]), inner, max_size=4),
    max_leaves=20)


@pytest.fixture(scope="module")
def typed_node():
    from kinduct.frontends.lucent.pipeline import load_checked

    return load_checked(text=TYPED).nodes["T"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=JSON)
def test_any_json_is_read_or_refused_with_a_location(typed_node, data):
    """Whatever the JSON, the reader gives typed steps or a located input error."""
    from pathlib import Path

    from kinduct.frontends.lucent.sim.inputs import read_inputs
    from kinduct.kernel.errors import InputError

    node = typed_node
    try:
        read_inputs(Path("in.json"), json.dumps(data), node.name, node.inputs, node.types)
    except InputError as exc:
        assert exc.location is not None and exc.location.line is not None, str(exc)
