"""``kinduct testgen``: every trace replays on ``kinduct simulate`` and follows its mode path
(checked here with the modes' requirements written in Python, not with the generator's code),
the reachable paths are exactly those a brute-force enumeration of small inputs finds, the
traces of a path differ, and an imported node gets traces of inputs and outputs for every
mode path."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
from pathlib import Path

from kinduct.kernel.cli import main
from kinduct.plugins.spellings.kind2 import rewrite
from tests.frontends.lucent.helpers import LUCENT


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# ---- the oracle: examples/lucent/accumulator_modes.lus in Python ----

def acc_run(steps: list[dict]) -> tuple[list[int], list[tuple[str, ...]]]:
    """Acc's output and active modes per step (the contract and the body, by hand)."""
    cs, modes = [], []
    prev = 0
    for s in steps:
        active = []
        if prev < 2:
            active.append("low")
        if prev >= 2:
            active.append("high")
        if s["up"] and s["x"] == 2:
            active.append("jump")
        c = prev + (s["x"] if s["up"] else 0)
        cs.append(c)
        modes.append(tuple(active))
        prev = c
    return cs, modes


def acc_paths(steps: int) -> dict[tuple[frozenset[str], ...], int]:
    """Every mode path of ``steps`` steps, over all inputs the assumption allows, with the
    number of input sequences that follow it."""
    domain = [{"up": u, "x": x} for u in (False, True) for x in (0, 1, 2)]
    out: dict[tuple[frozenset[str], ...], int] = {}
    for seq in itertools.product(domain, repeat=steps):
        path = tuple(frozenset(m) for m in acc_run(list(seq))[1])
        out[path] = out.get(path, 0) + 1
    return out


INPUTS = {"up", "x", "r", "speed", "brake", "g", "b"}  # the inputs of the models below


def written(target: Path) -> dict[str, tuple[list[tuple[str, ...]], list[list[dict]]]]:
    """Each path directory: its modes per step (from modes.txt) and its traces."""
    out = {}
    for d in sorted(p for p in target.iterdir() if p.is_dir()):
        modes = [tuple(line.split("activates ", 1)[1].split(" and "))
                 for line in (d / "modes.txt").read_text().splitlines()]
        traces = [json.loads(t.read_text()) for t in sorted(d.glob("trace_*.io.json"))]
        inputs = [json.loads(t.read_text()) for t in sorted(d.glob("trace_*.json"))
                  if not t.name.endswith(".io.json")]
        # the inputs alone (Kind 2's interpreter input), and with the outputs
        assert inputs == [[{k: v for k, v in s.items() if k in INPUTS} for s in t] for t in traces]
        out[d.name] = (modes, traces)
    return out


def test_every_trace_replays_on_simulate_and_follows_its_path(tmp_path):
    code, _, err = cli("testgen", LUCENT / "accumulator_modes.lus", "--depth", 3, "--per-path", 2,
                       "--out", tmp_path)
    assert code == 0, err
    paths = written(tmp_path / "Acc")
    counts = acc_paths(4)
    assert len(paths) == len(counts)
    for directory, (modes, traces) in paths.items():
        assert len(traces) == min(2, counts[tuple(frozenset(m) for m in modes)])
        for index, trace in enumerate(traces, 1):
            assert len(trace) == 4
            assert all(0 <= s["x"] <= 2 for s in trace)  # the assumption
            inputs = tmp_path / "Acc" / directory / f"trace_{index}.json"
            code, out, err = cli("simulate", LUCENT / "accumulator_modes.lus", "--input", inputs, "--json")
            assert code == 0, err
            streams = {s["name"]: [v for _, v in s["instantValues"]] for s in json.loads(out)[0]["streams"]}
            assert streams["c"] == [s["c"] for s in trace]  # the outputs written are the body's
            cs, active = acc_run(trace)
            assert cs == streams["c"]
            assert [set(a) for a in active] == [set(m) for m in modes]


def test_reachable_paths_are_exactly_the_brute_force_ones(tmp_path):
    for depth in (0, 2, 3):
        code, out, err = cli("testgen", LUCENT / "accumulator_modes.lus", "--depth", depth, "--graph-only",
                             "--out", tmp_path, "--json")
        assert code == 0, err
        (summary,) = json.loads(out)
        found = {tuple(frozenset(c) for c in t["modes"]) for t in summary["tests"]}
        expected = set(acc_paths(depth + 1))
        assert found == expected
        assert summary["paths"] == len(expected)
        assert summary["explored"] == summary["reachable"] + summary["unreachable"] + summary["undecided"]
        assert summary["undecided"] == 0
        dot = (tmp_path / "Acc" / "modes.dot").read_text()
        assert dot.startswith("strict digraph") and (depth == 0 or "->" in dot)


RESET = """node M (x: int; r: bool) returns (y: int);
(*@contract
  assume x >= -10 and x <= 10;
  mode reset (require r; ensure y = 0;);
  mode pos (require not r and x > 0; ensure y > 0;);
  mode other (require not r and x <= 0;);
*)
let
  y = if r then 0 else if x > 0 then x else 0;
tel
"""


def differ_enough(traces: list[list[dict]], inputs: tuple[str, ...]) -> None:
    for a, b in itertools.combinations(traces, 2):
        cells = [(k, n) for k in range(len(a)) for n in inputs]
        differ = sum(a[k][n] != b[k][n] for k, n in cells)
        assert 2 * differ >= len(cells), (a, b)


def test_traces_of_a_path_differ_in_at_least_half_their_input_values(tmp_path):
    model = tmp_path / "reset.lus"
    model.write_text(RESET)
    code, _, err = cli("testgen", model, "--depth", 2, "--per-path", 3, "--out", tmp_path, "--seed", 7)
    assert code == 0, err
    paths = written(tmp_path / "M")
    assert len(paths) == 27  # three exclusive modes, each reachable at every step
    for _, traces in paths.values():
        assert len(traces) == 3
        differ_enough(traces, ("x", "r"))
    # an enumeration of three values, one of them fixed by a mode: two traces per path
    code, _, err = cli("testgen", LUCENT / "modes_imported.lus", "--depth", 2, "--per-path", 2,
                       "--out", tmp_path, "--seed", 3)
    assert code == 0, err
    for _, traces in written(tmp_path / "Ctl").values():
        assert len(traces) == 2
        differ_enough(traces, ("speed", "brake", "g"))


def ctl_ok(trace: list[dict]) -> tuple[bool, list[tuple[str, ...]]]:
    """The contract of examples/lucent/modes_imported.lus, by hand: whether the trace keeps
    the assumptions, guarantees and ensures, and its active modes per step."""
    ok, modes, prev = True, [], None
    for s in trace:
        ok &= 0 <= s["speed"] <= 100 and 0 <= s["throttle"] <= 10
        ok &= prev is None or s["throttle"] - prev <= 3
        parked, braking = s["g"] == "Park", s["g"] != "Park" and s["brake"]
        cruising = s["g"] != "Park" and not s["brake"]
        modes.append(tuple(m for m, on in (("parked", parked), ("braking", braking),
                                           ("cruising", cruising)) if on))
        if parked or braking:
            ok &= s["throttle"] == 0
        if braking:
            ok &= s["alarm"] == (s["speed"] > 50)
        if cruising:
            ok &= s["throttle"] >= 1
        prev = s["throttle"]
    return ok, modes


def test_an_imported_node_gets_traces_of_inputs_and_outputs_for_every_mode_path(tmp_path):
    code, _, err = cli("testgen", LUCENT / "modes_imported.lus", "--depth", 2, "--per-path", 2,
                       "--out", tmp_path)
    assert code == 0, err
    paths = written(tmp_path / "Ctl")
    # the modes depend on the inputs of the step only: every sequence of one mode per step
    every = set(itertools.product([("parked",), ("braking",), ("cruising",)], repeat=3))
    assert {tuple(m) for m, _ in paths.values()} == every
    for modes, traces in paths.values():
        assert len(traces) == 2
        for trace in traces:
            assert set(trace[0]) == {"speed", "brake", "g", "throttle", "alarm"}
            ok, active = ctl_ok(trace)
            assert ok and active == modes


def test_kind2_spellings_and_errors(tmp_path):
    assert rewrite(["m.lus", "--testgen", "true", "--testgen_len", "3", "--output_dir", "d"]) == \
        ["testgen", "m.lus", "--depth", "3", "--out", "d", "--compositional"]
    assert rewrite(["m.lus", "--testgen=true", "--testgen_graph_only", "true"]) == \
        ["testgen", "m.lus", "--compositional", "--graph-only"]
    assert rewrite(["m.lus", "--testgen", "false"]) == ["m.lus"]
    assert rewrite(["--enable", "contract_monitor", "--monitor_trace_file", "t.json", "m.lus"]) == \
        ["monitor", "--exit-code-mode", "only_errors", "--trace", "t.json", "m.lus"]
    code, _, err = cli(LUCENT / "accumulator_modes.lus", "--testgen", "true", "--testgen_len", "1",
                       "--output_dir", tmp_path, "--testgen_graph_only")
    assert code == 0, err
    summary = json.loads((tmp_path / "Acc" / "summary.json").read_text())
    assert summary["paths"] == len(acc_paths(2)) and summary["traces"] == 0
    plain = tmp_path / "plain.lus"
    plain.write_text("node N (x: int) returns (y: int);\nlet\n  y = x;\ntel\n")
    code, _, err = cli("testgen", plain, "--out", tmp_path)
    assert code == 3 and "has no contract" in err and "Traceback" not in err
    code, _, err = cli("testgen", LUCENT / "accumulator_modes.lus", "--depth", "-1")
    assert code == 2


REALS = """node R (x: real; b: bool) returns (y: real);
(*@contract
  assume x >= 0.0 and x <= 10.0;
  mode hi (require x > 5.0;);
  mode lo (require x <= 5.0 and (false -> pre b););
  mode other (require x <= 5.0 and (true -> not pre b););
*)
let
  y = x / 2.0;
tel
"""


def test_real_inputs_are_diverse_and_follow_their_path(tmp_path):
    from fractions import Fraction
    model = tmp_path / "reals.lus"
    model.write_text(REALS)
    code, _, err = cli("testgen", model, "--depth", 1, "--per-path", 3, "--out", tmp_path)
    assert code == 0, err
    paths = written(tmp_path / "R")
    # hi or (lo / other by the previous b) at each step: by hand, 2 at step 0, then 2 each
    expected = {(a, b) for a in ("hi", "other") for b in ("hi", "lo", "other")}
    assert {tuple(m[0] for m in modes) for modes, _ in paths.values()} == expected
    for modes, traces in paths.values():
        assert len(traces) == 3
        for trace in traces:
            prev_b = None
            for k, s in enumerate(trace):
                x = Fraction(str(s["x"]))
                assert 0 <= x <= 10 and Fraction(str(s["y"])) == x / 2
                active = ["hi"] if x > 5 else ["lo"] if prev_b else ["other"]
                assert active == list(modes[k])
                prev_b = s["b"]
        assert len({tuple(str(s["x"]) for s in t) for t in traces}) == 3


ABSTRACTION = """node Sub (x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = 0; tel
node Top (x: int) returns (z: int);
(*@contract
  mode a (require true -> pre z > 0;);
  mode b (require true -> pre z <= 0;);
*)
let z = Sub(x); tel
"""


def test_compositional_counts_the_paths_of_the_callees_contracts(tmp_path):
    model = tmp_path / "abs.lus"
    model.write_text(ABSTRACTION)
    # with Sub's body z is always 0: both modes at step 0, then b only
    code, out, err = cli("testgen", model, "--main", "Top", "--depth", 2, "--out", tmp_path / "b", "--json")
    assert code == 0, err
    (body,) = json.loads(out)
    assert [t["modes"] for t in body["tests"]] == [[["a", "b"], ["b"], ["b"]]] and body["rejected"] == 0
    # by Sub's contract z is any natural: a or b from step 1 on (Kind 2's count); the paths only
    # the contract reaches get no trace (each is checked with Sub's body)
    code, out, err = cli("testgen", model, "--main", "Top", "--depth", 2, "--out", tmp_path / "c",
                         "--json", "--compositional")
    assert code == 0, err
    (abstract,) = json.loads(out)
    paths = {tuple(tuple(c) for c in t["modes"]): t for t in abstract["tests"]}
    assert set(paths) == {(("a", "b"), x, y) for x in (("a",), ("b",)) for y in (("a",), ("b",))}
    for path, t in paths.items():
        assert (t["traces"] > 0) == (path == (("a", "b"), ("b",), ("b",)))


DEADLOCK = """node D (x: int) returns (y: int);
(*@contract
  assume x >= 0 and x <= 3;
  assume true -> pre x < 3;
  mode lo (require x < 2;);
  mode mid (require x = 2;);
  mode top (require x = 3;);
*)
let y = x; tel
"""


def test_deadlocked_prefixes_are_listed_and_their_siblings_explored(tmp_path):
    model = tmp_path / "dl.lus"
    model.write_text(DEADLOCK)
    code, out, err = cli("testgen", model, "--depth", 2, "--graph-only", "--out", tmp_path, "--json")
    assert code == 0, err
    (summary,) = json.loads(out)
    # x = 3 (top) only at the last step: lo|mid, lo|mid, lo|mid|top; top earlier deadlocks
    modes = {0: "lo", 1: "lo", 2: "mid", 3: "top"}
    paths = {tuple(modes[x] for x in xs) for xs in itertools.product(range(3), range(3), range(4))}
    assert {tuple(c[0] for c in t["modes"]) for t in summary["tests"]} == paths
    assert sorted(tuple(c[0] for c in p) for p in summary["deadlockPaths"]) == \
        sorted([("top",), ("lo", "top"), ("mid", "top")])
