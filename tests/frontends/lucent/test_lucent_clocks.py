"""Clocks and node activation (issue 15): ``merge``, ``e when c``, ``current``, ``activate``
(``every``, ``initial default``, ``restart every``), ``(restart N every r)`` and ``condact``.
Verdicts, agreement with the real Kind 2 v3.0.0 on the same files, agreement of the simulator
with the translation on random programs, located refusals of ill-clocked models, and how
counterexamples and simulations show instances on clocks."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.pipeline import build_system, load_systems
from kinduct.frontends.lucent.sim.simulate import Simulator, leaves
from kinduct.frontends.lucent.syntax.parser import parse_text
from kinduct.frontends.lucent.trace.lift import trace_oracle
from kinduct.kernel.errors import InputError, UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Trace
from tests.conftest import BENCH, run_cli
from tests.frontends.lucent.helpers import answers, simulate

CLOCKS = Path(__file__).with_name("clocks")
KIND2_TESTS = BENCH / "lustre" / "kind2-tests"
needs_kind2_tests = pytest.mark.skipif(not KIND2_TESTS.is_dir(),
                                       reason="../shared/benchmarks is not present")

# ---- verdicts (each file is also read by Kind 2 v3.0.0, see test_real_kind2_agrees) ----

EXPECTED = {
    "merge_bool.lus": {"activated": "valid", "bare call": "valid", "holds": "valid",
                       "plain": "valid", "every step": "falsifiable", "ticks": "valid",
                       "sum of ticks": "valid"},
    "merge_enum.lus": {"off": "valid", "high": "valid", "lows count": "valid",
                       "highs count": "valid", "lows bounded": "falsifiable"},
    "condact.lus": {"default held": "valid", "default is first": "falsifiable", "held": "valid",
                    "ticked": "valid", "count": "valid", "positive sum": "valid",
                    "sum positive": "valid"},
    "restart.lus": {"restart only at ticks": "valid", "restarted": "valid", "together": "valid",
                    "branch restarted": "valid", "branch counts": "valid",
                    "activation restarted": "valid", "activation counts": "valid",
                    "activation holds": "valid", "prev": "valid",
                    "prev after restart": "falsifiable", "condact restarted": "valid",
                    "condact": "valid"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdicts(name):
    assert answers(CLOCKS / name) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_kind2_agrees(name, kind2):
    """Kind 2 reads the same file and gives the answers :func:`test_verdicts` wants of
    kinduct; its counterexamples are replayed on kinduct's system."""
    (system,) = load_systems(CLOCKS / name, LoadOptions())
    theirs = {v.property: v.answer.value
              for v in run(system, RunOptions(solver="kind2", timeout=60))}
    assert theirs == EXPECTED[name]


def test_current_and_kinduct_extensions():
    """``current`` (which Kind 2 v3.0.0 refuses), merge cases in any order, activations in lazy
    branches and a restarted node with a lazy branch of its own."""
    assert answers(CLOCKS / "current.lus") == {
        "sampled": "valid", "activated": "valid", "before first tick": "falsifiable",
        "any order": "valid", "in a branch": "valid", "branch restarted": "valid",
        "declared later": "valid", "sampled activation": "valid"}


@needs_kind2_tests
def test_kind2_suite_clock_models():
    """Kind 2's own models with clocks: its answers (manifest.csv), at a short limit."""
    got = answers(KIND2_TESTS / "success" / "test-merge.lus", timeout=60)
    assert set(got.values()) == {"valid"}
    assert answers(KIND2_TESTS / "falsifiable" / "stopwatch-condact.lus") == {
        "time_is_positive": "falsifiable"}
    got = answers(KIND2_TESTS / "falsifiable" / "test-issue-212.lus")
    assert got == {"ok": "falsifiable"}


# ---- simulations ----

def test_simulated_merge_condact_current():
    rows = simulate(CLOCKS / "simulated.lus", main="Main", inputs=[
        {"c": False, "x": 1}, {"c": True, "x": 2}, {"c": False, "x": 3}, {"c": True, "x": 4}])
    assert [r["a"] for r in rows] == [0, 2, 0, 6]  # the activated Acc sums at ticks only
    assert [r["b"] for r in rows] == [5, 2, 2, 6]  # held between ticks, the default before
    assert [r["d"] for r in rows] == [0, 2, 2, 4]  # current: arbitrary (default 0) before


def test_simulated_restart():
    rows = simulate(CLOCKS / "simulated.lus", [{"c": c, "x": 1} for c in
                                               (False, False, True, False, True, True)],
                    main="Restarted")
    assert [r["n"] for r in rows] == [0, 1, 0, 1, 0, 0]


def test_simulate_json_shows_steps_as_kind2(tmp_path):
    inputs = tmp_path / "in.csv"
    inputs.write_text("c,x\nfalse,1\ntrue,2\nfalse,3\ntrue,4\n")
    proc = run_cli("simulate", CLOCKS / "simulated.lus", "--input", inputs, "--json",
                   "--main", "Main")
    assert proc.returncode == 0, proc.stderr
    (top,) = json.loads(proc.stdout)
    activated, condact = top["subnodes"]
    s = next(x for x in activated["streams"] if x["name"] == "s")
    assert s["instantValues"] == [[1, 2], [3, 6]]  # only where the clock ticks
    s = next(x for x in condact["streams"] if x["name"] == "s")
    assert s["instantValues"] == [[1, 2], [2, 2], [3, 6]]  # held from the first tick on


def test_counterexample_shows_steps_as_kind2():
    proc = run_cli("check", CLOCKS / "shown.lus", "--json", "--timeout", "60")
    assert proc.returncode == 40, proc.stderr
    (prop,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    (top,) = prop["counterExample"]
    c = [v for _, v in next(s for s in top["streams"] if s["name"] == "c")["instantValues"]]
    ticks = [k for k, v in enumerate(c) if v]
    held = [k for k, v in enumerate(c) if k >= ticks[0]]
    activated, condact = top["subnodes"]
    for block, steps in ((activated, ticks), (condact, held)):
        for s in block["streams"]:
            assert [k for k, _ in s["instantValues"]] == steps, (block["name"], s["name"])
    # between ticks the condact instance shows the values of its last tick
    values = dict(map(tuple, next(s for s in condact["streams"] if s["name"] == "s")["instantValues"]))
    for k in held:
        last = max(t for t in ticks if t <= k)
        assert values[k] == values[last]


def test_text_counterexample_table_has_every_step():
    """A subnode's table has a column for every step of the trace, empty where it does not
    step."""
    proc = run_cli("check", CLOCKS / "shown.lus", "--timeout", "60")
    assert proc.returncode == 40, proc.stderr
    headers = [line for line in proc.stdout.splitlines() if line.startswith("┃ stream")]
    assert len(headers) == 3
    for header in headers:
        assert re.findall(r"\d+", header) == [str(k) for k in range(6)]


def test_api_counterexample_has_none_where_a_clock_does_not_tick():
    import kinduct
    result = kinduct.check(CLOCKS / "shown.lus", timeout=60)["n < 5"]
    c = result.counterexample["c"]
    assert len(c) == 6 and any(c) and not all(c)
    # the condact instance (the API names subnodes by node: the last Acc block): no value
    # before its first tick, its last tick's value after
    first = c.index(True)
    assert [v is not None for v in result.counterexample["Acc.s"]] == [k >= first for k in range(6)]


# ---- refusals: a located message, exit 3 ----

REFUSED = [
    ("y = x when c;", "'e when c' is only allowed as a case of merge or as the argument of "
     "current"),
    ("y = (activate Acc every c)(x);", "without 'initial default' is only allowed as a case of "
     "merge or as the argument of current"),
    ("y = merge(c; x when not c; x when c);", "clock mismatch: the case 'true' of this merge is "
     "sampled 'when c', not 'when not c'"),
    ("y = merge(c; (activate Acc every not c)(x); 0);", "clock mismatch: the activation in the "
     "case 'true' of this merge must be 'every c'"),
    ("y = merge(c; x + (1 when c); 0);", "'e when c' is only allowed"),
    ("y = merge(x; 1; 2);", "the clock of merge must be a Boolean or an enumeration stream, got "
     "int"),
    ("y = merge m (A -> 1 when A(m)) (B -> 2 when B(m));", "merge case 'C' is missing"),
    ("y = merge m (A -> 1) (B -> 2) (C -> 3) (D -> 4);", "merge case 'D' is not a value of M"),
    ("y = merge m (A -> 1) (A -> 2) (B -> 2) (C -> 3);", "merge case 'A' is given twice"),
    ("y = merge m (A -> 1 when B(m)) (B -> 2) (C -> 3);", "clock mismatch: the case 'A' of this "
     "merge is sampled 'when A(m)', not 'when B(m)'"),
    ("y = merge(c; 1; true);", "type mismatch: the cases of merge have types int and bool"),
    ("y = current(x);", "'current' needs a clocked argument"),
    ("y = current(x when x);", "the clock 'x' must be a Boolean stream"),
    ("y = current(x when A(c));", "'A(c)' samples on a value of an enumeration stream"),
    ("y = current(x when D(m));", "'D' is not a value of M"),
    ("y = condact(c, Acc(x));", "Acc has 1 output: expected 1 default, got 0"),
    ("y = condact(c, Acc(x), 1, 2);", "Acc has 1 output: expected 1 default, got 2"),
    ("y = condact(c, Acc(x), true);", "type mismatch in default 1 of Acc: expected int, got "
     "bool"),
    ("y = condact(x, Acc(x), 0);", "type mismatch: expected bool, got int"),
    ("y = (restart Acc every x)(x);", "type mismatch: expected bool, got int"),
    ("y = condact(c, Missing(x), 0);", "unknown node 'Missing'"),
]

HEAD = """type M = enum { A, B, C };
node Acc(x: int) returns (s: int);
let s = x + (0 -> pre s); tel
node N(c: bool; x: int; m: M) returns (y: int);
let
  """


@pytest.mark.parametrize("body,message", REFUSED, ids=[m[:40] for _, m in REFUSED])
def test_refused(body, message):
    with pytest.raises(InputError, match=_escaped(message)):
        check_program(parse_text(HEAD + body + "\ntel\n", "<bad>"))


def _escaped(text: str) -> str:
    return re.escape(text)


def test_refused_in_a_function():
    src = ("function F(c: bool; x: int) returns (y: int);\nlet\n  y = current(x when c);\ntel\n")
    with pytest.raises(InputError, match="'current' is not allowed in a function"):
        check_program(parse_text(src, "<bad>"))
    src = src.replace("current(x when c)", "condact(c, G(x), 0)")
    src = "function G(x: int) returns (y: int);\nlet\n  y = x;\ntel\n" + src
    with pytest.raises(InputError, match="'condact' is not allowed in a function"):
        check_program(parse_text(src, "<bad>"))


def test_clocked_declarations_are_unsupported():
    with pytest.raises(UnsupportedError, match="declarations on a clock"):
        parse_text("node N(c: bool; x: int) returns (y: int);\nvar z: int when c;\nlet\n"
                   "  z = x; y = merge(c; z; 0);\ntel\n")


def test_cli_refusal_is_located(tmp_path):
    src = tmp_path / "bad.lus"
    src.write_text(HEAD + "y = merge(c; x when not c; x when c);\ntel\n")
    proc = run_cli("check", src)
    assert proc.returncode == 3
    assert f"{src}:6:23: error: clock mismatch" in proc.stderr
    assert "Traceback" not in proc.stderr


@needs_kind2_tests
@pytest.mark.parametrize("name", ["test_condact.lus"])
def test_kind2_typecheck_fail_clock_models_stay_refused(name):
    proc = run_cli("check", KIND2_TESTS / "typecheck-fail" / name)
    assert proc.returncode == 3
    assert f"{name}:25:4: error: 'y1' is defined twice (first at line 22)" in proc.stderr


def test_precedence_of_when_and_current():
    """``when`` binds loosest (Kind 2's grammar: ``x + 1 when c`` samples ``x + 1``, and
    ``if a then b else c when d`` the whole conditional); ``current`` like ``pre``."""
    prog = parse_text("node N(c: bool; x: int) returns (y, z: int);\nlet\n"
                      "  y = merge(c; x + 1 when c; if c then x else 0 -> 1 when not c);\n"
                      "  z = current (x when c) + 1;\ntel\n")
    y, z = (s.rhs for s in prog.nodes[0].body)
    (_, t), (_, f) = y.cases
    assert type(t).__name__ == "When" and t.arg.op == "+"
    assert type(f).__name__ == "When" and type(f.arg).__name__ == "Ite"
    assert z.op == "+" and type(z.left).__name__ == "Current"


# ---- simulator and translation agree ----

HELPERS = """
node Acc(x: int) returns (s: int);
let s = x + (0 -> pre s); tel
node Un(x: int) returns (s: int);
let s = pre x + x; tel
node Lz(x: int; c: bool) returns (s: int);
let s = when c then (0 -> pre s) + x else 5; tel
node Two(x: int) returns (p, q: int);
let p = Acc(x); q = 1 -> pre p; tel
node Sum2(p, q: int) returns (s: int);
let s = p + q; tel
"""


@st.composite
def clock_programs(draw):
    """Programs with every clock operator; unguarded ``pre`` (in ``Un``, after restarts) and
    ``current`` before a tick make them nondeterministic: the comparison goes through a trace
    the translation allows, replayed on the simulator."""
    def node() -> str:
        return draw(st.sampled_from(["Acc", "Un"]))

    def cond() -> str:
        return draw(st.sampled_from(["c", "d", "(a > b)", "(true -> pre c)", "(not d)"]))

    def e(depth: int) -> str:
        atoms = ["a", "b", str(draw(st.integers(-3, 3))), "(0 -> pre v)"]
        if depth <= 0:
            return draw(st.sampled_from(atoms))
        x = e
        forms = [
            lambda: f"merge(c; {draw(st.sampled_from(['Acc', 'Un']))}({x(depth - 1)}); "
                    f"{x(depth - 1)} when not c)",
            lambda: f"merge(d; (activate {node()} every d)({x(depth - 1)}); {x(depth - 1)} when not d)",
            lambda: f"merge(c; {x(depth - 1)} when c; (activate {node()} every not c restart every "
                    f"{cond()})({x(depth - 1)}))",
            lambda: f"condact({cond()}, {node()}({x(depth - 1)}), {x(depth - 1)})",
            lambda: f"(activate {node()} every {cond()} initial default ({x(depth - 1)}) restart "
                    f"every {cond()})({x(depth - 1)})",
            lambda: f"(restart {node()} every {cond()})({x(depth - 1)})",
            lambda: f"current({x(depth - 1)} when c)",
            lambda: f"current((activate {node()} every d)({x(depth - 1)}))",
            lambda: f"Sum2(condact({cond()}, (restart Two every {cond()})({x(depth - 1)}), "
                    f"{x(depth - 1)}, {x(depth - 1)}))",
            lambda: f"(restart Lz every {cond()})({x(depth - 1)}, c)",
            lambda: f"merge(c; (activate (restart {node()} every d) every c)({x(depth - 1)}); "
                    f"{x(depth - 1)})",
            lambda: f"(when {cond()} then {x(depth - 1)} else {x(depth - 1)})",
            lambda: f"({x(depth - 1)} + {x(depth - 1)})",
            lambda: draw(st.sampled_from(atoms)),
        ]
        return draw(st.sampled_from(forms))()

    return f"""{HELPERS}
node Main(a, b: int; c, d: bool) returns (v, w: int);
let
  v = {e(3)};
  w = {e(2)};
tel
"""


def _trace(system, steps: list[dict]) -> Trace:
    """A run of the translated system on ``steps``' inputs (its free choices by the solver)."""
    env = system.env
    mgr = env.formula_manager
    un = Unroller(system)
    solver = env.factory.Solver(name="z3")
    solver.add_assertion(un.at(system.init, 0))
    by_name = {v.symbol_name(): v for v in system.current_vars}
    for k, step in enumerate(steps):
        for a in system.assumptions:
            solver.add_assertion(un.at(a, k))
        if k + 1 < len(steps):
            solver.add_assertion(un.at(system.trans, k))
        for name, value in step.items():
            value = mgr.Bool(value) if isinstance(value, bool) else mgr.Int(value)
            solver.add_assertion(mgr.EqualsOrIff(un.timed(by_name[name], k), value))
    assert solver.solve(), "the transition system has no execution for these inputs"
    rows = []
    for k in range(len(steps)):
        row = {}
        for name, var in by_name.items():
            v = solver.get_value(un.timed(var, k)).constant_value()
            row[name] = v if isinstance(v, bool | int) else Fraction(v)
        rows.append(row)
    return Trace.of(rows)


clock_inputs = st.lists(st.fixed_dictionaries({
    "a": st.integers(-3, 3), "b": st.integers(-2, 2), "c": st.booleans(), "d": st.booleans()}),
    min_size=1, max_size=6)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clock_programs(), clock_inputs)
def test_simulator_agrees_with_translation(src, steps):
    """Every stream of every instance, where it steps, as the translation has it."""
    checked = check_program(parse_text(src, "<random>"))
    trace = _trace(build_system(checked, "Main"), steps)
    sim = Simulator(checked, "Main", trace_oracle(trace))
    for k, inp in enumerate(steps):
        sim.step(inp)
        for inst in sim.instances():
            for n, value in inst.cur.items():
                for leaf, v in leaves(inst.prefix + n, inst.node.types[n], value).items():
                    assert trace.steps[k][leaf] == v, (src, k, leaf)
