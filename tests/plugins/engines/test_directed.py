"""Property-directed Houdini (:mod:`kinduct.plugins.engines.directed`): the candidates it
chooses, with the property, are k-inductive (asked of cvc5 on an unrolling built here, not with
the search's code), a candidate that is not inductive is left out, and a violated property
gets no proof."""

from __future__ import annotations

import time

from pysmt.typing import BOOL, INT

from kinduct.kernel import registry
from kinduct.kernel.certify import check_proof
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.plugins.engines import directed
from tests.plugins.engines.systems import context
from tests.plugins.engines.test_termgraph import toggles


def inductive_with(system: TransitionSystem, phi, k: int) -> bool:
    """``phi`` at steps ``0..k-1`` (the assumptions at ``0..k``) implies ``phi`` at step ``k``:
    asked of cvc5 on a plain unrolling."""
    m = system.env.formula_manager
    ub = Unroller(system)
    s = registry.backend("cvc5").solver(system.env)
    for j in range(k + 1):
        s.add_all(ub.at(a, j) for a in system.assumptions)
        if j < k:
            s.add(ub.at(system.trans, j))
            s.add(ub.at(phi, j))
    return not s.check([m.Not(ub.at(phi, k))])


def test_chosen_candidates_make_the_property_inductive_and_leave_out_the_rest():
    system = toggles()
    m = system.env.formula_manager
    p, q, wa, wb = system.state_vars
    prop = system.properties[0]
    goal = prop.obligation(system.env)
    # All hold initially: p <-> q is what the property needs; not p flips; a <-> p holds by
    # the assumptions; not (p and a) is inductive but not needed beside p <-> q.
    candidates = [m.Not(p), m.Iff(p, q), m.Iff(wa, p), m.Not(m.And(p, wa))]
    chosen = directed.choose(system, goal, candidates, context(system), 1, time.monotonic() + 30)
    assert chosen is not None
    assert 0 not in chosen  # not p: not inductive
    assert 1 in chosen
    phi = m.And(goal, *(candidates[i] for i in chosen))
    assert inductive_with(system, phi, 1)
    # Without p <-> q the property is 2-inductive alone, not 1-inductive.
    assert not inductive_with(system, goal, 1)


def test_proof_from_candidates_passes_the_kernel_check_under_cvc5():
    system = toggles()
    m = system.env.formula_manager
    p, q, _, _ = system.state_vars
    prop = system.properties[0]
    proof = directed.prove_directed(system, prop, [m.Not(p), m.Iff(p, q), m.Not(q)],
                                    context(system), time.monotonic() + 30).proof
    assert proof is not None and proof.k == 1
    (phi,) = parse_lemmas(system, [proof.invariant])
    checker = registry.backend("cvc5").solver(system.env)
    assert check_proof(system, prop, proof, phi, checker) is None


def counter_pair(broken: bool = False) -> TransitionSystem:
    """``x`` and ``y`` count up together from 0 (``y`` from 1 when ``broken``); the property
    ``x = 3 -> y = 3`` needs ``x = y``, which the candidates only give as ``x <= y`` and
    ``y <= x`` (with ``0 <= y - x`` true but useless, and ``x <= 2`` not inductive)."""
    b = SystemBuilder("pair")
    m = b.mgr
    x, xn = b.state("x", INT)
    y, yn = b.state("y", INT)
    go = b.input("go", BOOL)
    b.add_init(m.And(m.Equals(x, m.Int(0)), m.Equals(y, m.Int(1 if broken else 0))))
    b.add_trans(m.Equals(xn, m.Ite(go, m.Plus(x, m.Int(1)), x)))
    b.add_trans(m.Equals(yn, m.Ite(go, m.Plus(y, m.Int(1)), y)))
    b.add_property(Property("same", m.Implies(m.Equals(x, m.Int(3)), m.Equals(y, m.Int(3)))))
    return b.build()


def test_candidates_that_fail_are_dropped_until_the_rest_proves_the_property():
    system = counter_pair()
    m = system.env.formula_manager
    x, y = system.state_vars
    cands = [m.LE(x, m.Int(2)), m.LE(x, y), m.LE(y, x), m.LE(m.Int(0), x)]
    proof = directed.prove_directed(system, system.properties[0], cands, context(system),
                                    time.monotonic() + 30).proof
    assert proof is not None
    (phi,) = parse_lemmas(system, [proof.invariant])
    assert inductive_with(system, phi, proof.k)
    # x <= 2 is not in the proof: phi allows x = 3 (cvc5 finds such a state).
    s = registry.backend("cvc5").solver(system.env)
    s.add(phi)
    assert s.check([m.Equals(x, m.Int(3))])


def test_no_proof_of_a_violated_property():
    system = counter_pair(broken=True)
    m = system.env.formula_manager
    x, y = system.state_vars
    cands = [m.LE(x, y), m.LE(m.Int(0), x)]  # both hold initially, and are inductive
    outcome = directed.prove_directed(system, system.properties[0], cands, context(system),
                                      time.monotonic() + 30)
    assert outcome.proof is None and outcome.refuted


def test_simulation_with_input_hints_only_samples_reachable_states():
    """The graph's simulation hints inputs only (``state_hints=False``): its samples still
    satisfy the wire's definition and lie in the counter's reachable range.  (The state moves
    less than with hints on it: an unhinted Boolean input mostly stays false, and here x
    may stay 0 where state hints take it to 3; the BMC refinement adds the states at depths
    0..1 either way.)"""
    from kinduct.plugins.engines.simulation import Simulator

    b = SystemBuilder("wired")
    m = b.mgr
    x, xn = b.state("x", INT)
    w, _ = b.state("w", BOOL)
    go = b.input("go", BOOL)
    b.add_init(m.Equals(x, m.Int(0)))
    b.add_trans(m.Equals(xn, m.Ite(go, m.Plus(x, m.Int(1)), x)))
    b.add_assumption(m.Iff(w, m.LE(m.Int(2), x)))
    b.add_property(Property("small", m.LE(x, m.Int(100))))
    system = b.build()
    sim = Simulator(system, context(system), seed=3, state_hints=False)
    try:
        samples = sim.runs(count=4, depth=8, deadline=time.monotonic() + 20)
    finally:
        sim.solver.close()
    assert samples
    for s in samples:
        assert 0 <= s[x] <= 8
        assert s[w] == (s[x] >= 2)


def test_a_run_whose_numbers_explode_ends_there():
    """``r = 1 -> pre r / e`` with ``e > 1`` chosen freely: the solver may pick values whose
    digits double at every step; the runs keep no number over ``MAX_DIGITS`` digits beyond
    their first state (they end there), and ``oversized`` says which numbers those are."""
    from fractions import Fraction

    from pysmt.typing import REAL

    from kinduct.plugins.engines.simulation import MAX_DIGITS, Simulator, oversized

    assert oversized(10 ** MAX_DIGITS) and oversized(Fraction(1, 10 ** MAX_DIGITS))
    assert not oversized(10 ** MAX_DIGITS - 1) and not oversized(True)
    assert not oversized(Fraction(-3, 7))
    b = SystemBuilder("shrink")
    m = b.mgr
    r, r_next = b.state("r", REAL)
    e = b.input("e", REAL)
    b.add_init(m.Equals(r, m.Real(1)))
    b.add_assumption(m.GT(e, m.Real(1)))
    b.add_trans(m.Equals(r_next, m.Div(r, e)))
    b.add_property(Property("pos", m.GT(r, m.Real(0))))
    system = b.build()
    sim = Simulator(system, context(system), seed=3)
    states = sim.runs(4, 12, time.monotonic() + 30)
    assert states
    for state in states:
        assert not any(oversized(v) for v in state.values()), state


def test_invgen_has_a_head_start_on_a_system_with_wires_and_settles_after_its_proof():
    from kinduct.plugins.engines.invgen import InvGen

    system = toggles()
    eng = InvGen()
    assert eng.head_start(system, InvGen.Options()) > 0
    assert eng.head_start(system, InvGen.Options(graph=False)) == 0
    settled: list[float] = []
    verdicts: list[float] = []
    ctx = context(system, options=InvGen.Options())
    ctx.settle = lambda: settled.append(time.monotonic())
    for v in eng.check(system, list(system.properties), ctx):
        if v.answer.definitive:
            verdicts.append(time.monotonic())
    assert verdicts and settled  # the graph's proof, then the end of the head start
    assert min(settled) >= min(verdicts)


def test_a_search_on_a_violated_property_reports_that_it_stalled():
    system = toggles(broken=True)
    m = system.env.formula_manager
    p = system.state_vars[0]
    stalls: list[int] = []
    # not p is not inductive: the property fails with every survivor (none)
    outcome = directed.prove_directed(system, system.properties[0], [m.Not(p)],
                                      context(system), time.monotonic() + 30,
                                      stalled=lambda: stalls.append(1))
    assert outcome.proof is None
    assert stalls
