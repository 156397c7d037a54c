"""The hard-end engines (``ic3ia``, ``ic3mbp``, ``chc``) and the backend capabilities they rest
on (interpolants, model-based projection, Horn solving): their verdicts agree with ``bmc`` and
``kind`` on random small systems and on the examples, their invariants hold under the other
solver, their counterexamples replay."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from pysmt.typing import INT

from kinduct.frontends.crasp.queries import acceptors, query_system
from kinduct.kernel import registry
from kinduct.kernel.certify import certify
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.loading import load_systems
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.system import SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer
from kinduct.plugins.engines.ic3mbp import IC3MBP
from tests.plugins.engines.systems import context, decide, twin_counters, wrapping_counter
from tests.plugins.engines.test_differential import build, build_wired, systems, wired_systems

ROOT = Path(__file__).resolve().parents[3]
ENGINES = ("ic3ia", "ic3mbp", "chc")


def hard_verdicts(system: TransitionSystem, solver: str = "z3") -> dict[str, object]:
    out = {"bmc": decide("bmc", system, context(system, solver, max_k=8))["P"],
           "kind": decide("kind", system, context(system, solver, max_k=5))["P"]}
    for name in ENGINES:
        out[name] = decide(name, system, context(system, solver, max_k=15, timeout=10.0))["P"]
    return out


def check_agreement(system: TransitionSystem, solver: str = "z3") -> None:
    prop = system.properties[0]
    results = hard_verdicts(system, solver)
    answers = {name: v.answer for name, v in results.items()}
    definitive = {a for a in answers.values() if a in (Answer.VALID, Answer.FALSIFIABLE)}
    assert len(definitive) <= 1, f"engines contradict: {answers}"
    other = {"z3": "cvc5", "cvc5": "z3"}[solver]
    for name, v in results.items():
        if v.answer is Answer.FALSIFIABLE:
            assert replay_trace(system, v.trace, prop) is None, name
        if v.answer is Answer.VALID and name in ENGINES:
            assert v.invariant is not None, name
            assert certify(system, prop, v.invariant, other) is None, name


FEW = settings(max_examples=12, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FEW
@given(systems())
def test_hard_engines_agree_on_random_systems(desc):
    check_agreement(build(desc))


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(wired_systems())
def test_hard_engines_agree_on_wired_systems(desc):
    check_agreement(build_wired(desc))


@pytest.mark.parametrize("engine", ENGINES)
def test_known_answers(engine):
    """Valid needs ``x <= limit`` (a wrapping counter) or ``x = y`` (twin counters); the broken
    twins are falsifiable at depth 7.  ``ic3mbp``'s projected cubes (``x >= 7, y <= 6``) never
    add up to ``x = y``: it gets the twins from its invariant seeding."""
    for system, expected in ((wrapping_counter(), Answer.VALID), (twin_counters(), Answer.VALID),
                             (twin_counters(broken=True), Answer.FALSIFIABLE)):
        (prop,) = system.properties
        options = IC3MBP.Options(invgen=True, invgen_budget=1.0) if engine == "ic3mbp" else None
        v = decide(engine, system, context(system, timeout=20.0, options=options))[prop.name]
        assert v.answer is expected, (engine, system.name, v.message)
        if expected is Answer.VALID:
            assert certify(system, prop, v.invariant, "cvc5") is None
        else:
            assert replay_trace(system, v.trace, prop) is None


@pytest.mark.parametrize("engine", ENGINES)
def test_vmt_examples(engine):
    """The VMT examples: the counter holds, its buggy twin fails (the trace replays)."""
    for name, expected in (("counter.vmt", Answer.VALID), ("counter_bug.vmt", Answer.FALSIFIABLE),
                           ("twin_counters.vmt", Answer.VALID)):
        (system,) = load_systems(ROOT / "examples" / "vmt" / name, None, LoadOptions())
        results = decide(engine, system, context(system, timeout=20.0))
        for prop in system.properties:
            v = results[prop.name]
            assert v.answer is expected, (engine, name, v.message)
            if expected is Answer.FALSIFIABLE:
                assert replay_trace(system, v.trace, prop) is None


def test_ic3ia_proves_the_majority_acceptor():
    """The Lucent MAJORITY acceptor equals its C-RASP program: the invariant relates the
    running difference to the two counts (``count2 = count1 - pre_d``), which cvc5's
    interpolants supply and plain IC3 cubes do not."""
    lus = ROOT / "examples" / "crasp" / "lucent" / "majority.lus"
    system = query_system("equiv", acceptors([lus, ROOT / "examples" / "crasp" / "majority.crasp"]))
    (prop,) = system.properties
    v = decide("ic3ia", system, context(system, timeout=30.0))[prop.name]
    assert v.answer is Answer.VALID, v.message
    assert certify(system, prop, v.invariant, "cvc5") is None


@pytest.mark.parametrize("solver", ["cvc5", "z3"])
def test_interpolant_separates(solver):
    """``A: x = 0, y = x + 1`` and ``B: y < 0``: the interpolant is over ``y`` alone, follows
    from A and contradicts B (checked by a plain solver)."""
    b = SystemBuilder("itp")
    m = b.mgr
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    z, _ = b.state("z", INT)
    a_part = [m.Equals(x, m.Int(0)), m.Equals(y, m.Plus(x, m.Int(1)))]
    b_part = [m.LT(y, m.Int(0)), m.Equals(z, y)]
    env = b.build().env
    itp = registry.backend(solver).solver(env).interpolant(a_part, b_part, 10.0)
    assert itp is not None
    assert env.fvo.get_free_variables(itp) <= {y}
    check = registry.backend("z3").solver(env)
    check.add(m.And(a_part))
    assert not check.check([m.Not(itp)])
    check.reset()
    check.add(m.And(b_part))
    assert not check.check([itp])


def test_projection_is_an_implicant_of_the_projected_formula():
    """z3's model-based projection of ``x = y + 1 and y > 3`` onto ``x``: true in the model,
    and every ``x`` it allows has a ``y`` (so it implies ``x > 4``)."""
    b = SystemBuilder("mbp")
    m = b.mgr
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    formula = m.And(m.Equals(x, m.Plus(y, m.Int(1))), m.GT(y, m.Int(3)))
    env = b.build().env
    solver = registry.backend("z3").solver(env)
    solver.add(formula)
    assert solver.check()
    model_x = solver.values([x])[x]
    got = solver.project(formula, [x])
    assert got is not None and env.fvo.get_free_variables(got) <= {x}
    check = registry.backend("cvc5").solver(env)
    check.add(got)
    assert check.check([m.Equals(x, m.Int(model_x))])
    assert not check.check([m.LE(x, m.Int(4))])
    assert registry.backend("cvc5").solver(env).project(formula, [x]) is None
