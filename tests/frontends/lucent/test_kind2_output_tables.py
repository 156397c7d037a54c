"""Counterexample tables a person can navigate (issue 36): instances titled by their call
site (Kind 2's ``Counter (Top[L23C8])``), the active modes per step (``== Mode(s) ==``), and
datatype values in Lucent syntax, real fields and record fields included."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import run_cli

HERE = Path(__file__).resolve().parent


def test_instances_are_titled_by_call_site_and_modes_are_shown():
    out = run_cli(HERE / "kind2_output" / "instances.lus", "--timeout", "30", timeout=120).stdout
    # the property `ok` reads both counters: one table per instance, told apart by call site
    assert "counterexample for ok: node Counter (Top[L23C8])" in out, out
    assert "counterexample for ok: node Counter (Top[L24C8])" in out, out
    # `s <> 5.0` needs Scale's input at 2.5, where its mode `large` is the active one
    scale = out[out.index("counterexample for s <> 5.0: node Scale (Top[L26C7])"):]
    row = next(line for line in scale.splitlines() if "== Mode(s) ==" in line)
    assert "large" in row and "small" not in row, row


def test_datatype_values_are_printed_in_lucent_syntax(tmp_path):
    model = tmp_path / "shapes.lus"
    model.write_text(
        "datatype Shape = Circle (r: real) | Rectangle (w: real, h: int) | Dot;\n"
        "type Point = struct { x: int; y: int };\n"
        "datatype Wrap = W (p: Point) | Nothing;\n"
        "node Top(s: Shape; q: Wrap) returns (ok1, ok2: bool);\nlet\n"
        "  ok1 = s <> Rectangle(0.25, -5);\n  ok2 = q <> W(Point { x = 1; y = 2 });\n"
        "  check ok1;\n  check ok2;\ntel\n")
    out = run_cli(model, "--timeout", "30", timeout=120).stdout
    assert re.search(r"│ s +│ input +│ +Rectangle\(0\.25, -5\) │", out), out
    assert re.search(r"│ q +│ input +│ +W\(Point \{ x = 1; y = 2 \}\) │", out), out
    assert '"num"' not in out


def test_a_counterexample_with_record_inputs_feeds_back_to_simulate(tmp_path):
    """A record input is one stream per field in the JSON (``p.x``, ``p.y``, as Kind 2's);
    ``simulate`` reads them back as the record, and replays the property's failure."""
    import json

    model = HERE / "kind2_output" / "instances.lus"
    objects = json.loads(run_cli(model, "--json", "--timeout", "30", timeout=120).stdout)
    (prop,) = [o for o in objects if o.get("objectType") == "property" and o["name"] == "q.x <> 3.5"]
    top = prop["counterExample"][0]
    names = {s["name"] for s in top["streams"]}
    assert {"p.x", "p.y"} <= names and "p" not in names, names
    cex = tmp_path / "cex.json"
    cex.write_text(json.dumps([prop]))  # that property's counterexample only
    proc = run_cli("simulate", model, "--input", cex, "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    streams = {s["name"]: s for s in block["streams"]}
    steps = len(prop["counterExample"][0]["streams"][0]["instantValues"])
    assert len(streams["ok"]["instantValues"]) == steps
    shown = {s["name"]: s for s in top["streams"]}
    assert streams["q"]["instantValues"][-1][1]["x"] == shown["q.x"]["instantValues"][-1][1]
