"""IC3 parts on tiny systems whose invariants are known, with both solvers."""

from __future__ import annotations

import pytest

from kinduct.kernel.certify import certify, check_invariant
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.verdict import Answer
from kinduct.plugins.engines.ic3 import IC3, IC3Base
from tests.plugins.engines.systems import context, decide, twin_counters, wrapping_counter

SOLVERS = ["z3", "cvc5"]


def _entails(system, inv, formula, solver: str) -> bool:
    from kinduct.kernel import registry

    s = registry.backend(solver).solver(system.env)
    s.add(inv)
    s.add(system.env.formula_manager.Not(formula))
    return not s.check()


@pytest.mark.parametrize("solver", SOLVERS)
def test_bad_state_cube_pins_the_state_and_is_generalised(solver):
    system = wrapping_counter()
    m = system.env.formula_manager
    x = system.state_vars[0]
    core = IC3Base(system, context(system, solver))
    core.new_level()
    bad = core.get_bad(system.properties[0].formula, 1)
    assert bad is not None and bad.level == 1
    # every literal holds at x = 15 and the cube excludes every other value
    s = core.init_solver
    assert _entails(system, m.And(bad.cube), m.Equals(x, m.Int(15)), solver)
    assert not s.check(list(bad.cube))  # disjoint from Init


@pytest.mark.parametrize("solver", SOLVERS)
def test_relative_induction_core_and_generalisation_give_the_bound_lemma(solver):
    system = wrapping_counter()
    m = system.env.formula_manager
    x = system.state_vars[0]
    core = IC3Base(system, context(system, solver))
    core.new_level()
    cube = tuple(core.vocab.cube({x: 12}))
    ok, reduced = core.relative_induction(cube, 0)  # Init and T cannot reach x = 12
    assert ok and set(reduced) <= set(cube)
    lemma_cube = core.generalize(core.repair_init(reduced or cube, cube), 1)
    assert not core.intersects_init(lemma_cube)
    assert core.relative_induction(lemma_cube, 0)[0]
    # generalisation turned the point x = 12 into a half-space containing it
    assert _entails(system, m.Equals(x, m.Int(12)), m.And(lemma_cube), solver)
    assert _entails(system, m.GE(x, m.Int(12)), m.And(lemma_cube), solver)


@pytest.mark.parametrize("solver", SOLVERS)
def test_counter_needs_bound_lemma(solver):
    system = wrapping_counter()
    m = system.env.formula_manager
    x = system.state_vars[0]
    v = decide("ic3", system, context(system, solver, options=IC3.Options(invgen=False)))["not_bad"]
    assert v.answer is Answer.VALID
    (inv,) = parse_lemmas(system, [v.invariant])
    # any certificate must exclude the states 11..14 that run into 15
    assert _entails(system, inv, m.Or(m.LE(x, m.Int(10)), m.GE(x, m.Int(16))), solver)
    from kinduct.kernel import registry

    assert check_invariant(system, system.properties[0], inv,
                           registry.backend(solver).solver(system.env)) is None
    other = {"z3": "cvc5", "cvc5": "z3"}[solver]
    assert certify(system, system.properties[0], v.invariant, other) is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_twin_counters_need_equality(solver):
    system = twin_counters()
    m = system.env.formula_manager
    x, y = system.state_vars
    v = decide("ic3", system, context(system, solver, options=IC3.Options(invgen=False)))["same"]
    assert v.answer is Answer.VALID
    (inv,) = parse_lemmas(system, [v.invariant])
    # x = y + d with d != 0 and x = 7 reachable through such states would break the property:
    assert _entails(system, m.And(inv, m.Equals(x, m.Int(7))), m.Equals(y, m.Int(7)), solver)
    # kind cannot prove it (not k-inductive) within a few steps
    kv = decide("kind", system, context(system, solver, max_k=6))["same"]
    assert kv.answer is Answer.UNKNOWN


@pytest.mark.parametrize("solver", SOLVERS)
def test_counterexample_is_concrete_and_replays(solver):
    system = twin_counters(target=3, broken=True)
    v = decide("ic3", system, context(system, solver, options=IC3.Options(invgen=False)))["same"]
    assert v.answer is Answer.FALSIFIABLE
    assert replay_trace(system, v.trace, system.properties[0]) is None
    assert v.k == 3  # x reaches 3 after three steps; y is then 4


def test_wrong_certificate_is_rejected():
    system = wrapping_counter()
    m = system.env.formula_manager
    x = system.state_vars[0]
    from kinduct.kernel import registry

    s = registry.backend("z3").solver(system.env)
    prop = system.properties[0]
    assert check_invariant(system, prop, m.LE(x, m.Int(5)), s) == "consecution fails"
    assert check_invariant(system, prop, m.LE(x, m.Int(-1)), s) == "initiation fails"
    assert check_invariant(system, prop, m.TRUE(), s) == "safety fails"
    assert check_invariant(system, prop, m.And(m.LE(x, m.Int(10)), m.GE(x, m.Int(0))), s) is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_propagation_finds_fixpoint_with_lemmas_pushed(solver):
    system = wrapping_counter(limit=3, bad=5)
    core = IC3Base(system, context(system, solver))
    v = core.decide(system.properties[0])
    assert v.answer is Answer.VALID
    assert v.k >= 1 and core.stats["lemmas"] >= 1
    # the invariant was added to the lemmas known forever
    assert core.forever


def _lustre_like():
    """``x = 0 -> pre x + 1`` as the Lustre translation writes it: ``x`` is a wire set by an
    assumption, ``p`` and ``q`` are two ``pre x`` registers (arbitrary in the first step) that
    ``trans`` copies, ``h`` a register nothing reads, ``first`` the first-step flag."""
    from pysmt.typing import BOOL, INT

    from kinduct.kernel.system import Property, SystemBuilder

    sb = SystemBuilder("lustre_like")
    m = sb.mgr
    first, first_n = sb.state("first", BOOL)
    p, p_n = sb.state("p", INT)
    q, q_n = sb.state("q", INT)
    x, _ = sb.state("x", INT)
    h, h_n = sb.state("h", INT)
    sb.add_init(first)
    sb.add_assumption(m.Equals(x, m.Ite(first, m.Int(0), m.Plus(p, m.Int(1)))))
    sb.add_trans(m.Not(first_n))
    sb.add_trans(m.Equals(p_n, x))
    sb.add_trans(m.Equals(q_n, x))
    sb.add_trans(m.Equals(h_n, m.Plus(x, m.Int(2))))
    sb.add_property(Property("P", m.Or(first, m.Equals(x, m.Plus(q, m.Int(1))))))
    return sb.build(), (first, p, q, x, h)


def test_cone_keeps_the_registers_a_step_reads_and_leaves_wires_out():
    from kinduct.kernel import registry
    from kinduct.plugins.engines.analysis import Cone

    system, (first, p, q, x, h) = _lustre_like()
    cone = Cone(system, [], registry.backend("z3").solver(system.env))
    assert set(cone.step()) == {first, p}  # x is a wire; its definition reads first and p
    assert set(cone.prop(system.properties[0].formula)) == {first, p, q}
    assert h not in cone.step() and x not in cone.step()


def test_copies_of_one_stream_are_equal_after_the_first_step():
    from kinduct.kernel import registry
    from kinduct.plugins.engines.analysis import copy_invariants, first_flag

    system, (first, p, q, _x, _h) = _lustre_like()
    m = system.env.formula_manager
    solver = registry.backend("z3").solver(system.env)
    assert first_flag(system, solver) == first
    (lemma,) = copy_invariants(system, solver)
    assert lemma == m.Or(first, m.Equals(p, q))


@pytest.mark.parametrize("solver", SOLVERS)
def test_ic3_proves_a_lustre_like_system_with_a_certificate(solver):
    system, _ = _lustre_like()
    ctx = context(system, solver, options=IC3.Options(invgen=False))
    core = IC3Base(system, ctx)
    assert core.project
    v = decide("ic3", system, context(system, solver, options=IC3.Options(invgen=False)))["P"]
    assert v.answer is Answer.VALID
    other = {"z3": "cvc5", "cvc5": "z3"}[solver]
    assert certify(system, system.properties[0], v.invariant, other) is None


@pytest.mark.parametrize("solver", SOLVERS)
def test_ic3_projected_counterexample_is_concrete(solver):
    system, (first, _p, _q, x, _h) = _lustre_like()
    m = system.env.formula_manager
    from kinduct.kernel.system import Property

    system = system.with_properties([Property("Q", m.Or(first, m.LE(x, m.Int(3))))])
    v = decide("ic3", system, context(system, solver, options=IC3.Options(invgen=False)))["Q"]
    assert v.answer is Answer.FALSIFIABLE and v.k == 4  # x counts 0, 1, 2, 3, 4
    assert replay_trace(system, v.trace, system.properties[0]) is None
