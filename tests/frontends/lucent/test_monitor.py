"""``kinduct monitor``: on random traces, the truth of every contract element per step and the
first violation agree with an oracle written here (the two example contracts in Python), with
the outputs either recorded in the trace or computed by ``kinduct simulate``; counterexamples
of ``kinduct check`` are read back and violate their property where they end."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.kernel.cli import main
from tests.frontends.lucent.helpers import LUCENT

ACC = LUCENT / "accumulator_modes.lus"
CTL = LUCENT / "modes_imported.lus"
HELD, VIOLATED = 0, 40


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def first_violation(rows: list[dict[str, bool]], modes: list[str]) -> tuple[str, int] | None:
    """Oracle: the first step where a guarantee fails or a mode's requires hold and its ensures
    do not, all assumptions having held so far (``rows``: element truth per step)."""
    for k, row in enumerate(rows):
        if not all(v for name, v in row.items() if name.startswith("assume")):
            return None
        for name, v in row.items():
            if name.startswith("guarantee") and not v:
                return name, k
        for m in modes:
            if row[f"{m}.requires"] and not row[f"{m}.ensures"]:
                return f"{m}.ensures", k
    return None


def acc_contract(steps: list[dict]) -> list[dict[str, bool]]:
    """examples/lucent/accumulator_modes.lus's contract on inputs and outputs, step by step."""
    rows, prev = [], 0
    for s in steps:
        up, x, c = s["up"], s["x"], s["c"]
        rows.append({"assume": 0 <= x <= 2, "guarantee": c >= 0,
                     "low.requires": prev < 2, "low.ensures": c <= 4,
                     "high.requires": prev >= 2, "high.ensures": True,
                     "jump.requires": up and x == 2, "jump.ensures": c >= 2})
        prev = c
    return rows


def ctl_contract(steps: list[dict]) -> list[dict[str, bool]]:
    """examples/lucent/modes_imported.lus's contract, step by step."""
    rows, prev = [], None
    for s in steps:
        t, g = s["throttle"], s["g"]
        rows.append({"assume": 0 <= s["speed"] <= 100, "guarantee1": 0 <= t <= 10,
                     "guarantee2": prev is None or t - prev <= 3,
                     "parked.requires": g == "Park", "parked.ensures": t == 0,
                     "braking.requires": g != "Park" and s["brake"],
                     "braking.ensures": t == 0 and s["alarm"] == (s["speed"] > 50),
                     "cruising.requires": g != "Park" and not s["brake"], "cruising.ensures": t >= 1})
        prev = t
    return rows


def monitored(model: Path, trace: list[dict], tmp: Path) -> tuple[int, dict]:
    path = tmp / "trace.json"
    path.write_text(json.dumps(trace))
    code, out, err = cli("monitor", model, "--trace", path, "--json")
    assert code in (HELD, VIOLATED), err
    (result,) = json.loads(out)
    return code, result


def agree(code: int, result: dict, rows: list[dict[str, bool]], modes: list[str]) -> None:
    """The monitor's element values and verdict are the oracle's."""
    by_kind: dict[str, list[dict]] = {}
    for e in result["elements"]:
        by_kind.setdefault(e["category"], []).append(e)
    got: list[dict[str, bool]] = [{} for _ in rows]
    for kind, prefix in (("assumption", "assume"), ("guarantee", "guarantee")):
        for i, e in enumerate(by_kind.get(kind, [])):
            key = prefix if sum(k.startswith(prefix) for k in rows[0]) == 1 else f"{prefix}{i + 1}"
            for k, v in e["instantValues"]:
                got[k][key] = v
    for e in by_kind["require"] + by_kind["ensure"]:
        for k, v in e["instantValues"]:
            got[k][e["name"]] = v
    assert got == rows
    expected = first_violation(rows, modes)
    if expected is None:
        assert code == HELD and result["violation"] is None
    else:
        v = result["violation"]
        assert code == VIOLATED and v["step"] == expected[1]
        assert v["name"] == expected[0] or (expected[0].startswith("guarantee")
                                            and v["category"] == "guarantee")


# 40 examples each in the default suite (each a whole CLI run: 100 took 45 s under load)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.function_scoped_fixture])
acc_steps = st.lists(st.fixed_dictionaries({"up": st.booleans(), "x": st.integers(-1, 3),
                                            "c": st.integers(-1, 6)}), min_size=1, max_size=6)


@SETTINGS
@given(trace=acc_steps)
def test_monitor_agrees_with_the_oracle_on_recorded_runs(trace, tmp_path):
    code, result = monitored(ACC, trace, tmp_path)
    agree(code, result, acc_contract(trace), ["low", "high", "jump"])


@SETTINGS
@given(trace=acc_steps)
def test_monitor_agrees_with_simulate_plus_the_oracle_on_inputs(trace, tmp_path):
    inputs = [{"up": s["up"], "x": s["x"]} for s in trace]
    (tmp_path / "in.json").write_text(json.dumps(inputs))
    code, out, err = cli("simulate", ACC, "--input", tmp_path / "in.json", "--json")
    assert code == 0, err
    c = next(s for s in json.loads(out)[0]["streams"] if s["name"] == "c")["instantValues"]
    full = [{**s, "c": v} for s, (_, v) in zip(inputs, c, strict=True)]
    code, result = monitored(ACC, inputs, tmp_path)  # no outputs: the body computes them
    assert [v for _, v in next(s for s in result["streams"] if s["name"] == "c")["instantValues"]] == \
        [s["c"] for s in full]
    agree(code, result, acc_contract(full), ["low", "high", "jump"])


@SETTINGS
@given(trace=st.lists(st.fixed_dictionaries({
    "speed": st.integers(-5, 105), "brake": st.booleans(), "g": st.sampled_from(["Park", "Drive", "Reverse"]),
    "throttle": st.integers(-1, 11), "alarm": st.booleans()}), min_size=1, max_size=6))
def test_monitor_agrees_with_the_oracle_on_an_imported_node(trace, tmp_path):
    code, result = monitored(CTL, trace, tmp_path)
    agree(code, result, ctl_contract(trace), ["parked", "braking", "cruising"])


def test_monitor_reads_counterexamples_and_reports_errors(tmp_path):
    model = tmp_path / "bad.lus"
    model.write_text("node B (x: int) returns (c: int);\n(*@contract\n  assume x >= 0;\n"
                     "  guarantee c < 5;\n*)\nlet\n  c = 0 -> pre c + x;\ntel\n")
    _, out, _ = cli("check", model, "--json")
    cex = tmp_path / "cex.json"
    cex.write_text(out)
    objects = json.loads(out)
    (prop,) = [o for o in objects if o.get("objectType") == "property"]
    length = len(prop["counterExample"][0]["streams"][0]["instantValues"])
    code, out, err = cli("monitor", model, "--trace", cex, "--json")
    assert code == VIOLATED, err
    (result,) = json.loads(out)
    assert result["violation"]["step"] == length - 1 and result["violation"]["category"] == "guarantee"
    code, out, err = cli("monitor", model, "--trace", tmp_path / "missing.json")
    assert code == 3 and "Traceback" not in err
    broken = tmp_path / "broken.json"
    broken.write_text('[{"x": 1,')
    code, out, err = cli("monitor", model, "--trace", broken)
    assert code == 3 and "broken.json:1:" in err
    only = tmp_path / "only_inputs.json"
    only.write_text(json.dumps([{"speed": 1, "brake": True, "g": "Park"}]))
    code, out, err = cli("monitor", CTL, "--trace", only)
    assert code == 3 and "no value for the outputs" in err


def test_exit_codes_as_help_says(tmp_path):
    """``monitor --help``'s codes: 0 held, 40 violated; Kind 2's spelling exits 0 either way,
    as Kind 2's monitor does."""
    _, help_text, _ = _help("monitor")
    assert "0    every guarantee and mode held" in help_text and "40   a guarantee" in help_text
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"up": True, "x": 2, "c": 2}, {"up": True, "x": 1, "c": -3}]))
    good = LUCENT / "accumulator_modes_run.json"
    assert cli("monitor", ACC, "--trace", good)[0] == 0
    assert cli("monitor", ACC, "--trace", bad)[0] == 40
    assert cli("monitor", ACC, "--trace", bad, "--exit-code-mode", "only_errors")[0] == 0
    code, out, err = cli("--enable", "contract_monitor", "--monitor_trace_file", bad, ACC, "--json")
    assert code == 0, err
    assert json.loads(out)[0]["result"] == "violated"


def _help(command: str) -> tuple[int, str, str]:
    out = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out):
        try:
            main([command, "--help"])
        except SystemExit as stop:
            code = int(stop.code or 0)
    return code, out.getvalue(), ""


def test_malformed_traces_are_located_input_errors(tmp_path):
    """A trace that is no run (``{"steps": 6}``, ``[1,2,3]``, an empty list, a missing input,
    a wrong type, an output missing at one step) is exit 3 with file:line:col and a caret,
    never "every guarantee held"."""
    cases = {
        "columns.json": ('{"steps": 6}', "columns.json:1:11:"),
        "numbers.json": ("[1,2,3]", "numbers.json:1:2:"),
        "empty.json": ("[]", "empty.json:1:1:"),
        "missing.json": ('[{"up": true, "x": 1},\n {"x": 1}]', "missing.json:2:2:"),
        "typed.json": ('[{"up": true,\n  "x": "seven"}]', "typed.json:2:8:"),
        "partial.json": ('[{"up": true, "x": 1, "c": 1},\n {"up": true, "x": 1}]', "partial.json:2:2:"),
        "short.csv": ("up,x\ntrue,1\nfalse,one\n", "short.csv:3:7:"),
    }
    for name, (text, where) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, out, err = cli("monitor", ACC, "--trace", path)
        assert code == 3, (name, code, out, err)
        assert where in err and "^" in err and "Traceback" not in err, (name, err)
        assert "held" not in out, (name, out)
