"""``--property`` on Lucent models: the engines work on the property's cone of influence
(kernel/cone.py).  The report has the blocks, streams, types and classes of the run on the
whole system (the runner's slicing turned off here), the counterexample replays (it is
reported falsifiable, not an error), and a valid verdict's certificate checks against the
whole system (``--certify``)."""

from __future__ import annotations

import json
import sys

from kinduct.kernel import runner
from kinduct.kernel.cli import main
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from scale_models import gen_model  # noqa: E402


def _report(capsys, *args: str) -> list[dict]:
    main([*args, "--json", "--timeout", "60"])
    return [o for o in json.loads(capsys.readouterr().out) if o.get("objectType") == "property"]


def _shape(block: dict) -> tuple:
    """A block without its values: names, types, classes, sections, sub-blocks."""
    return (block["name"], tuple((s["name"], s["type"], s["class"]) for s in block["streams"]),
            tuple(k for k in block if k.endswith("Trace")),
            tuple(_shape(b) for b in block.get("subnodes", ())))


def test_the_sliced_counterexample_has_the_whole_report(tmp_path, capsys, monkeypatch):
    path = tmp_path / "gen.lus"
    path.write_text(gen_model(12_000))
    args = (str(path), "--engine", "bmc", "--property", "falsifiable")
    cones = []
    real = runner.cone_of

    def recording(system, props):
        cone = real(system, props)
        cones.append(cone)
        return cone

    monkeypatch.setattr(runner, "cone_of", recording)
    (sliced,) = _report(capsys, *args)
    assert cones and cones[0] is not None  # the run was sliced: 4 variables of thousands
    assert len(cones[0].system.current_vars) * 100 < len(cones[0].whole.current_vars)
    monkeypatch.setattr(runner, "cone_of", lambda system, props: None)
    (whole,) = _report(capsys, *args)
    assert sliced["answer"]["value"] == whole["answer"]["value"] == "falsifiable"
    assert sliced["k"] == whole["k"] == 0
    (top_sliced,), (top_whole,) = sliced["counterExample"], whole["counterExample"]
    assert _shape(top_sliced) == _shape(top_whole)
    assert top_sliced["streams"] == top_whole["streams"]  # the top node's: what the cone holds


def test_a_valid_property_of_the_slice_is_certified_on_the_whole_system(tmp_path, capsys,
                                                                        monkeypatch):
    path = tmp_path / "m.lus"
    path.write_text("""
node count(reset: bool) returns (n: int);
let
  n = 0 -> if reset then 0 else pre n + 1;
tel

node main(a: int; reset: bool) returns (ok: bool; noise: int);
var c: int; d: int;
let
  c = count(reset);
  d = a * 3 + (0 -> pre d);
  noise = d - a;
  ok = c >= 0;
  --%PROPERTY ok;
  --%PROPERTY noise >= 0;
tel
""")
    cones = []
    real = runner.cone_of
    monkeypatch.setattr(runner, "cone_of", lambda system, props: cones.append(
        real(system, props)) or cones[-1])
    (verdict,) = _report(capsys, str(path), "--engine", "kind", "--property", "ok", "--certify")
    left_out = {v.symbol_name() for v in cones[0].whole.current_vars} - \
        {v.symbol_name() for v in cones[0].system.current_vars}
    assert {"a", "d", "noise"} <= left_out
    assert verdict["answer"]["value"] == "valid"
    assert verdict.get("certified") is True
