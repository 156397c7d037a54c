"""Circular definitions that exist only after the first step (JKind's drivetrain model) are read
as constraints; cycles at step 0 stay errors; counterexamples must satisfy the equations."""

from __future__ import annotations

import csv
import json

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.verdict import Trace
from tests.conftest import BENCH, properties, run_cli

# g = 1 and g = 2 both satisfy g's equation after the first step.
TWO_FIXED_POINTS = """
node main(x: int) returns (g: int);
let
  g = 0 -> (if g = 1 then 1 else 2);
  check "small" g <= 2;
  check "never_two" g <> 2;
tel
"""


def _write(tmp_path, text: str):
    path = tmp_path / "m.lus"
    path.write_text(text)
    return path


def test_later_cycle_is_a_constraint(tmp_path):
    path = _write(tmp_path, TWO_FIXED_POINTS)
    proc = run_cli("check", path, "--json", "--timeout", "60")
    assert "warning: circular definition after the first step: g -> g" in proc.stderr
    props = properties(json.loads(proc.stdout))
    assert props["small"]["answer"]["value"] == "valid"
    assert props["never_two"]["answer"]["value"] == "falsifiable"
    assert proc.returncode == 40


def test_cycle_at_first_step_is_rejected(tmp_path):
    path = _write(tmp_path, "node main(x: int) returns (g: int);\nlet\n  g = (g + 1) -> 0;\ntel\n")
    proc = run_cli("check", path)
    assert proc.returncode == 3
    assert f"{path}:3:7: error: circular definition: g -> g" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_replay_checks_the_circular_equation(tmp_path):
    """A trace whose g does not satisfy g's equation is refused by the simulator."""
    system = load_systems(_write(tmp_path, TWO_FIXED_POINTS), LoadOptions())[0]
    prop = next(p for p in system.properties if p.name == "never_two")
    good = Trace(steps=({"x": 0, "g": 0}, {"x": 0, "g": 2}))
    assert system.replay(good, prop) is None
    bad = Trace(steps=({"x": 0, "g": 0}, {"x": 0, "g": 3}))
    message = system.replay(bad, prop)
    assert message is not None and "circular equation of g does not hold at step 1" in message


def test_simulate_refuses_a_circular_stream(tmp_path):
    path = _write(tmp_path, TWO_FIXED_POINTS)
    inputs = tmp_path / "in.csv"
    inputs.write_text("x\n1\n2\n")
    proc = run_cli("simulate", path, "--input", inputs)
    assert proc.returncode == 3
    assert "cannot simulate: 'g' is defined circularly" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_jkind_drivetrain_gets_jkinds_verdicts():
    path = BENCH / "lustre" / "kind2-regression" / "jkind_drivetrain.lus"
    if not path.exists():
        pytest.skip("shared benchmarks not present")
    with open(path.parent / "manifest.csv") as fh:
        row = next(r for r in csv.DictReader(fh) if r["file"] == path.name)
    expected = {p["prop"]: p["verdict"] for p in json.loads(row["properties_json"])}
    proc = run_cli("check", path, "--json", "--timeout", "60")
    got = {name: o["answer"]["value"] for name, o in properties(json.loads(proc.stdout)).items()}
    assert got == expected


def test_two_stream_cycle_at_first_step_is_rejected(tmp_path):
    path = _write(tmp_path, "node C() returns (a, b: int);\nlet\n  a = b -> 0;\n  b = a;\ntel\n")
    with pytest.raises(InputError, match="circular definition: a -> b -> a"):
        load_systems(path, LoadOptions())
