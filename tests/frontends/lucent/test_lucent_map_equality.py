"""Regression: equality between two map values (review §1.7). ``MapParts.__eq__`` imported its
helper from a module that did not define it, so the simulator crashed on any comparison of two
maps: ``kinduct simulate`` stopped with an internal error, and ``kinduct check`` reported a false
map equality as ``error`` (its counterexample did not replay)."""

from __future__ import annotations

import json

from tests.conftest import properties, run_cli, run_json
from tests.frontends.lucent.helpers import write

MAPS = """
node M(x: int) returns (ok: bool);
var m1, m2: map<int, int>;
let
  m1 = map[1 := x];
  m2 = map[1 := {right}];
  ok = (m1 = m2);
  check ok;
tel
"""


def _stream(block: dict, name: str) -> list:
    return next(s for s in block["streams"] if s["name"] == name)["instantValues"]


def test_a_false_map_equality_is_falsifiable_and_its_counterexample_replays(tmp_path):
    model = write(tmp_path, MAPS.format(right="x + 1"))
    code, objects = run_json("check", model, "--timeout", "60")
    prop = properties(objects)["ok"]
    assert prop["answer"]["value"] == "falsifiable", prop
    block = prop["counterExample"][0]
    xs = [v for _, v in _stream(block, "x")]
    # the counterexample's inputs, run by the simulator: the maps differ at every step
    inputs = tmp_path / "inputs.csv"
    inputs.write_text("x\n" + "".join(f"{x}\n" for x in xs))
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    sim = json.loads(proc.stdout)[0]
    assert [v for _, v in _stream(sim, "ok")] == [False] * len(xs)
    assert [v for _, v in _stream(sim, "x")] == xs


def test_a_true_map_equality_is_valid_and_simulates(tmp_path):
    model = write(tmp_path, MAPS.format(right="x"))
    code, objects = run_json("check", model, "--timeout", "60")
    assert properties(objects)["ok"]["answer"]["value"] == "valid"
    inputs = tmp_path / "inputs.csv"
    inputs.write_text("x\n3\n-4\n")
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    assert [v for _, v in _stream(json.loads(proc.stdout)[0], "ok")] == [True, True]
