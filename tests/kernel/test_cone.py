"""The cone of influence of selected properties (kernel/cone.py), checked without its code: a
bounded search of this file's own (substitution and z3) on random small systems finds a
violation at step k on the slice exactly when it finds one on the whole system, and a
violation found on the slice, extended, replays on the whole system; the runner keeps a
vacuous system valid, falls back to the whole system where a dropped definition cannot be
computed, and reports a falsifiable verdict whose trace covers every variable."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from kinduct.kernel import runner
from kinduct.kernel.cone import cone_of
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace

ROLES = ("wire", "register", "register-init", "free", "constrained")


@st.composite
def systems(draw, cyclic: bool) -> TransitionSystem:
    """A system of integer state variables, two integer inputs and a Boolean one: each state
    variable a wire (an assumption ``x = t``), a register (``x' = t``, with or without an
    ``init``), free, or constrained (a relational assumption, no definition).  Unless
    ``cyclic``, a wire reads only the variables before it; the property compares one or two
    variables with a constant."""
    env = Environment()
    mgr = env.formula_manager
    b = SystemBuilder("random", env=env)
    n = draw(st.integers(2, 6))
    xs = [b.state(f"x{j}", INT)[0] for j in range(n)]
    ins = [b.input("i0", INT), b.input("i1", INT)]
    flag = b.input("go", BOOL)

    def term(readable: list[FNode], depth: int = 0) -> FNode:
        pick = draw(st.integers(0, 4 if depth < 2 else 1))
        if pick == 0 or not readable:
            return mgr.Int(draw(st.integers(-3, 3)))
        if pick == 1:
            return draw(st.sampled_from(readable))
        if pick == 2:
            return mgr.Plus(term(readable, depth + 1), term(readable, depth + 1))
        if pick == 3:
            return mgr.Times(mgr.Int(draw(st.integers(-2, 2))), term(readable, depth + 1))
        cond = mgr.Or(flag, mgr.LT(term(readable, depth + 1), mgr.Int(draw(st.integers(-2, 2)))))
        return mgr.Ite(cond, term(readable, depth + 1), term(readable, depth + 1))

    for j, x in enumerate(xs):
        role = draw(st.sampled_from(ROLES))
        others = [v for v in xs if v is not x]
        if role == "wire":
            reads = ins + (others if cyclic else xs[:j])
            b.add_assumption(mgr.Equals(x, term(reads)))
        elif role.startswith("register"):
            b.update(x, term(ins + xs))
            if role == "register-init":
                b.add_init(mgr.Equals(x, term(ins + (others if cyclic else xs[:j]))))
        elif role == "constrained":
            b.add_assumption(mgr.LE(x, term(ins + xs)))
    a, c = draw(st.sampled_from(xs + ins)), draw(st.sampled_from(xs + ins))
    formula = mgr.LT(a, mgr.Int(draw(st.integers(-2, 4))))
    if draw(st.booleans()):
        formula = mgr.Or(formula, mgr.GT(c, mgr.Int(draw(st.integers(-2, 4)))))
    b.add_property(Property("P", formula))
    return b.build()


def _at(system: TransitionSystem, formula: FNode, k: int) -> FNode:
    """``formula`` with each current variable at step ``k`` and each next one at ``k + 1``."""
    mgr = system.env.formula_manager
    names = {v: mgr.Symbol(f"{v.symbol_name()}@{k}", v.symbol_type()) for v in system.current_vars}
    names.update({n: mgr.Symbol(f"{v.symbol_name()}@{k + 1}", v.symbol_type())
                  for v, n in zip(system.state_vars, system.next_vars, strict=True)})
    return system.env.substituter.substitute(formula, names)


def violation(system: TransitionSystem, k: int) -> Trace | None:
    """An execution of ``system`` violating ``P`` at step ``k`` (its variables' values at each
    step), or None: a bounded search of this test's own."""
    env = system.env
    mgr = env.formula_manager
    parts = [_at(system, system.init, 0), _at(system, mgr.Not(system.property("P").formula), k)]
    for i in range(k + 1):
        parts.extend(_at(system, a, i) for a in system.assumptions)
        if i < k:
            parts.append(_at(system, system.trans, i))
    with env.factory.Solver(name="z3") as solver:
        solver.add_assertion(mgr.And(parts))
        if not solver.solve():
            return None
        steps = []
        for i in range(k + 1):
            step = {}
            for v in system.current_vars:
                value = solver.get_value(mgr.Symbol(f"{v.symbol_name()}@{i}", v.symbol_type()))
                step[v.symbol_name()] = value.constant_value() if not value.is_int_constant() \
                    else int(value.constant_value())
            steps.append(step)
        return Trace.of(steps)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems(cyclic=False))
def test_acyclic_definitions_slice_decides_alike_and_traces_extend(system):
    cone = cone_of(system, [system.property("P")])
    if cone is None:
        return
    assert len(cone.system.current_vars) < len(system.current_vars)
    for k in range(3):
        whole = violation(system, k)
        sliced = violation(cone.system, k)
        assert (whole is None) == (sliced is None), k
        if sliced is not None:
            extended = cone.extend(sliced)
            assert extended is not None
            assert set(extended.steps[0]) == {v.symbol_name() for v in system.current_vars}
            assert replay_trace(system, extended, system.property("P")) is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems(cyclic=True))
def test_any_definitions_slice_is_no_stronger_and_extensions_replay(system):
    """With definitions in cycles the slice may have violations the whole system has not; a
    violation of the whole system is one of the slice, and an extended trace is a real one."""
    cone = cone_of(system, [system.property("P")])
    if cone is None:
        return
    for k in range(3):
        whole = violation(system, k)
        sliced = violation(cone.system, k)
        if whole is not None:
            assert sliced is not None
        if sliced is not None:
            extended = cone.extend(sliced)
            if extended is not None:
                assert replay_trace(system, extended, system.property("P")) is None


def _start(name: str, *states: str) -> tuple[SystemBuilder, Any, list[FNode], FNode]:
    """A builder (and its formula manager) with the integer state variables ``states`` and an
    integer input ``i``."""
    env = Environment()
    b = SystemBuilder(name, env=env)
    return b, env.formula_manager, [b.state(n, INT)[0] for n in states], b.input("i", INT)


def _vacuous(definition: bool) -> TransitionSystem:
    """``i < 5`` over an input, beside a variable ``z`` the property does not read, whose
    assumption has no solution: ``z < z`` (no definition), or ``z = z + 1`` (the shape of
    one)."""
    b, mgr, (z, y), i = _start("vacuous", "z", "y")
    b.add_assumption(mgr.Equals(y, mgr.Plus(i, mgr.Int(1))))
    b.add_assumption(mgr.Equals(z, mgr.Plus(z, mgr.Int(1))) if definition else mgr.LT(z, z))
    b.add_property(Property("P", mgr.LT(i, mgr.Int(5))))
    b.add_property(Property("Q", mgr.LT(y, mgr.Int(9))))
    return b.build()


def test_an_assumption_outside_the_property_keeps_it_vacuous():
    system = _vacuous(definition=False)
    cone = cone_of(system, [system.property("P")])
    assert cone is not None and {v.symbol_name() for v in cone.system.current_vars} == {"i", "z"}
    for sliced in (True, False):
        verdicts = run(system, RunOptions(engines=("kind",), properties=("P",), timeout=60,
                                          cone=sliced))
        assert [v.answer for v in verdicts][:1] == [Answer.VALID]


def test_a_definition_that_cannot_be_computed_falls_back_to_the_whole_system():
    system = _vacuous(definition=True)  # z = z + 1: dropped, and the trace does not extend
    cone = cone_of(system, [system.property("P")])
    assert cone is not None and [v.symbol_name() for v in cone.system.current_vars] == ["i"]
    assert cone.extend(Trace.of([{"i": 7}])) is None
    (verdict,) = run(system, RunOptions(engines=("bmc",), properties=("P",), timeout=60, max_k=3,
                                        cone=True))
    assert verdict.answer is Answer.UNKNOWN


def test_a_falsifiable_verdict_on_the_slice_has_a_whole_trace(monkeypatch):
    b, mgr, xs, i = _start("chain", "x0", "x1", "x2", "x3")
    b.add_init(mgr.Equals(xs[0], mgr.Int(0)))
    b.update(xs[0], mgr.Plus(xs[0], mgr.Int(1)))  # a register outside the cone
    for j in range(1, 4):
        b.add_assumption(mgr.Equals(xs[j], mgr.Plus(xs[j - 1], i)))  # wires outside it
    b.add_property(Property("P", mgr.LT(i, mgr.Int(5))))
    b.add_property(Property("Q", mgr.GE(xs[3], xs[0])))  # not selected: the run is sliced
    chain = b.build()
    sliced = []
    monkeypatch.setattr(runner, "cone_of", lambda system, props: sliced.append(
        cone_of(system, props)) or sliced[-1])
    (verdict,) = run(chain, RunOptions(engines=("bmc",), properties=("P",), timeout=60,
                                       cone=True))
    assert [v.symbol_name() for v in sliced[0].system.current_vars] == ["i"]
    assert verdict.answer is Answer.FALSIFIABLE and verdict.k == 0
    (step,) = verdict.trace.steps
    assert set(step) == {"x0", "x1", "x2", "x3", "i"}
    assert step["x0"] == 0 and step["x3"] == 3 * step["i"] and step["i"] >= 5


def test_a_wire_read_before_the_register_init_it_reads_takes_its_initial_value():
    b, mgr, (x, w), i = _start("init-order", "x", "w")
    b.add_assumption(mgr.Equals(w, mgr.Plus(x, i)))  # a wire, before x's init in the order
    b.add_init(mgr.Equals(x, mgr.Int(7)))
    b.update(x, mgr.Int(0))
    b.add_property(Property("P", mgr.LT(i, mgr.Int(5))))
    system = b.build()
    cone = cone_of(system, [system.property("P")])
    trace = cone.extend(Trace.of([{"i": 5}, {"i": 6}]))
    assert [dict(s) for s in trace.steps] == [{"i": 5, "x": 7, "w": 12}, {"i": 6, "x": 0, "w": 6}]


def test_a_valid_verdict_of_the_slice_has_a_certificate_of_the_whole_system():
    """The invariant proved on the slice is checked (``--certify``, the other SMT backend)
    against the whole system, whose constraints only strengthen its premises."""
    b, mgr, (x, w), i = _start("certified", "x", "w")
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.update(x, mgr.Plus(x, mgr.Int(1)))
    b.add_assumption(mgr.Equals(w, mgr.Times(mgr.Int(2), i)))  # outside the cone of P
    b.add_property(Property("P", mgr.GE(x, mgr.Int(0))))
    b.add_property(Property("Q", mgr.GE(w, mgr.Int(0))))  # not selected: the run is sliced
    system = b.build()
    assert [v.symbol_name() for v in cone_of(system, [system.property("P")]).system.current_vars] \
        == ["x"]
    for engine in ("kind", "ic3"):
        (verdict,) = run(system, RunOptions(engines=(engine,), properties=("P",), timeout=60,
                                            certify=True, cone=True))
        assert verdict.answer is Answer.VALID, engine
        assert verdict.extra.get("certified") is True, (engine, verdict.extra)


def test_only_a_run_asked_to_is_sliced(monkeypatch):
    asked = []
    monkeypatch.setattr(runner, "cone_of", lambda system, props: asked.append(props))
    system = _vacuous(definition=False)
    run(system, RunOptions(engines=("bmc",), properties=("Q",), timeout=60, max_k=1))
    assert asked == []
    run(system, RunOptions(engines=("bmc",), properties=("Q",), timeout=60, max_k=1, cone=True))
    assert [[p.name for p in props] for props in asked] == [["Q"]]
