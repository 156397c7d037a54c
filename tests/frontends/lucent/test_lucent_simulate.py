"""Done-when 2 and 4: ``kinduct simulate`` and the replay of counterexamples on the simulator."""

from __future__ import annotations

import json

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.acceptance import accept
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer, Trace
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import LUCENT


def test_simulate_combine_csv():
    proc = run_cli("simulate", LUCENT / "combine_simple.lus", "--input", LUCENT / "combine_inputs.csv")
    assert proc.returncode == 0, proc.stderr
    z_row = next(line for line in proc.stdout.splitlines() if " z " in line)
    assert [int(x) for x in z_row.replace("│", " ").split()[2:]] == [9, 12, 15]


def test_simulate_combine_json(tmp_path):
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"x": [1, 2, 3], "y": [4, 5, 6]}))
    proc = run_cli("simulate", LUCENT / "combine.lus", "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    streams = {s["name"]: s for s in block["streams"]}
    assert streams["z"]["instantValues"] == [[0, 9], [1, 12], [2, 15]]
    assert streams["z"]["class"] == "output" and streams["l"]["class"] == "local"


def test_simulate_subnodes_and_main(tmp_path):
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps([{}, {}, {}]))
    proc = run_cli("simulate", LUCENT / "composition.lus", "--input", inputs, "--json", "--main", "Top")
    (block,) = json.loads(proc.stdout)
    streams = {s["name"]: s["instantValues"] for s in block["streams"]}
    assert streams["ctr1"] == [[0, 3], [1, 4], [2, 5]]
    assert [b["name"] for b in block["subnodes"]] == ["Counter", "Counter"]


def test_simulate_bad_input(tmp_path):
    inputs = tmp_path / "in.csv"
    inputs.write_text("x,y\n1,true\n")
    proc = run_cli("simulate", LUCENT / "combine.lus", "--input", inputs)
    assert proc.returncode == 3
    assert "expected a value of type int, got 'true'" in proc.stderr
    assert "Traceback" not in proc.stderr


def _falsified(path, name):
    (system,) = load_systems(path, LoadOptions())
    (v,) = run(system, RunOptions(timeout=60, properties=(name,)))
    assert v.answer is Answer.FALSIFIABLE
    return system, system.property(name), v


def test_genuine_counterexample_replays():
    system, prop, v = _falsified(LUCENT / "count.lus", "small")
    assert system.replay(v.trace, prop) is None
    # the counterexample is printed in source terms
    block = system.lift(v.trace, prop)[0]
    assert block["name"] == "Count"
    assert {s["name"] for s in block["streams"]} == {"trigger", "n"}


def test_injected_wrong_trace_is_an_internal_error():
    system, prop, v = _falsified(LUCENT / "count.lus", "small")
    steps = [dict(s) for s in v.trace.steps]
    steps[-1]["n"] = steps[-1]["n"] - 5  # a stream value the semantics does not produce
    bad = Trace.of(steps)
    msg = system.replay(bad, prop)
    assert msg is not None and "stream n" in msg
    accepted = accept(system, prop, v.evolve(trace=bad)).verdict
    assert accepted.answer is Answer.ERROR
    assert "does not replay" in accepted.message


def test_trace_that_does_not_violate_is_rejected():
    system, prop, v = _falsified(LUCENT / "combine.lus", "z > 0")
    steps = [dict(s) for s in v.trace.steps]
    steps[-1].update({"x": 5, "y": 1, "l": 2, "z": 7})  # consistent, but z > 0 holds
    msg = system.replay(Trace.of(steps), prop)
    assert msg is not None and "z > 0" in msg


def test_unguarded_pre_counterexample_replays():
    # pre x = pre x is falsifiable: the two occurrences are independent at step 0
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "p.lus"
        src.write_text("node main(x: bool) returns (OK: bool);\nlet\n  OK = pre x = pre x;\n"
                       "  --%PROPERTY OK;\ntel\n")
        system, prop, v = _falsified(src, "OK")
        assert system.replay(v.trace, prop) is None


def test_pre_occurrences_share_one_memory_after_step_0(tmp_path):
    """Every ``pre x`` reads one memory of ``x``; an unguarded occurrence is still free at step 0."""
    from kinduct.frontends.lucent.pipeline import load_systems
    from kinduct.kernel.frontend import LoadOptions
    from tests.conftest import properties, run_json
    src = tmp_path / "p.lus"
    src.write_text("node main(x: int) returns (y: int);\nlet\n  y = 0 -> pre x + pre x;\n"
                   '  check "guarded" true -> (pre x = pre x);\n'
                   '  check "later" true -> (pre x - pre x = 0 and y = 2 * pre x);\n'
                   '  check "step0" pre x = pre x;\ntel\n')
    system = load_systems(src, LoadOptions())[0]
    memories = [str(v) for v in system.state_vars if "%pre.x" in str(v)]
    assert len(memories) == 1
    for engine in ("kind", "ic3"):
        code, objs = run_json("check", src, "--engine", engine, "--timeout", "60")
        got = {n: o["answer"]["value"] for n, o in properties(objs).items()}
        assert got["guarded"] == "valid" and got["later"] == "valid", (engine, got)
        assert got["step0"] == "falsifiable", (engine, got)
