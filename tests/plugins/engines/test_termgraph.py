"""The term graph (Kind 2-style one-state invariant generation over wires and registers):
its candidates, its invariants (checked by bounded unrolling with the other solver) and the
k-inductive proofs it enables (checked with cvc5 by the kernel's proof check)."""

from __future__ import annotations

import time

from pysmt.typing import BOOL, INT

from kinduct.kernel import registry
from kinduct.kernel.certify import check_proof
from kinduct.kernel.lemmas import parse_lemmas
from kinduct.kernel.machine import MAX_STRETCH
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.unroll import Unroller
from kinduct.plugins.engines import termgraph
from tests.plugins.engines.systems import context


def toggles(broken: bool = False) -> TransitionSystem:
    """Registers ``p`` and ``q`` flip at every step from ``p = q = false`` (``q = true`` when
    ``broken``); the wires ``a = p`` and ``b = not q`` are defined by assumptions.  The
    property ``not (a and b)`` is 2-inductive alone and 1-inductive with ``p <-> q``."""
    b = SystemBuilder("toggles")
    m = b.mgr
    p, p_n = b.state("p", BOOL)
    q, q_n = b.state("q", BOOL)
    wa, _ = b.state("a", BOOL)
    wb, _ = b.state("b", BOOL)
    b.add_init(m.And(m.Not(p), q if broken else m.Not(q)))
    b.add_trans(m.Iff(p_n, m.Not(p)))
    b.add_trans(m.Iff(q_n, m.Not(q)))
    b.add_assumption(m.Iff(wa, p))
    b.add_assumption(m.Iff(wb, m.Not(q)))
    b.add_property(Property("excl", m.Not(m.And(wa, wb))))
    return b.build()


def holds_for(system: TransitionSystem, formula, steps: int, solver: str = "cvc5") -> bool:
    """No execution of ``steps`` steps from init violates ``formula`` (bounded unrolling)."""
    m = system.env.formula_manager
    ub = Unroller(system)
    s = registry.backend(solver).solver(system.env)
    s.add(ub.at(system.init, 0))
    for j in range(steps + 1):
        s.add_all(ub.at(a, j) for a in system.assumptions)
        if j:
            s.add(ub.at(system.trans, j - 1))
        if s.check([m.Not(ub.at(formula, j))]):
            return False
    return True


def test_graph_candidates_are_constants_and_equivalences_of_the_samples():
    system = toggles()
    m = system.env.formula_manager
    p, q, wa, wb = system.state_vars
    terms = termgraph.candidate_terms(system, [], negations=False)
    assert {t.formula for t in terms} == {p, q, wa, wb}
    graph = termgraph.TermGraph(terms, implications=False)
    for values in ((False, False), (True, True)):
        graph.add({p: values[0], q: values[1], wa: values[0], wb: not values[1]})
    forms = [t.formula for t in terms]
    cands = {termgraph.TermGraph.render(m, c, forms) for c in graph.candidates()}
    # p, q and a take the same values in every sample; b the opposite ones
    assert m.Iff(p, q) in cands and m.Iff(p, wa) in cands
    assert all(len(system.env.fvo.get_free_variables(c)) == 2 for c in cands)


def test_generated_invariants_hold_on_every_short_execution():
    system = toggles()
    lemmas = termgraph.generate(system, context(system), budget=60.0)
    assert lemmas
    for lemma in lemmas:
        assert holds_for(system, lemma, 6)


def test_graph_invariants_make_the_property_one_inductive_and_the_proof_checks():
    system = toggles()
    prop = system.properties[0]
    ctx = context(system)
    alone = termgraph.prove(system, prop, [], ctx)
    assert alone is not None and alone.k == 2
    proof = termgraph.prove(system, prop, termgraph.generate(system, ctx, budget=60.0), ctx)
    assert proof is not None and proof.k == 1
    (phi,) = parse_lemmas(system, [proof.invariant])
    checker = registry.backend("cvc5").solver(system.env)
    assert check_proof(system, prop, proof, phi, checker) is None


def test_no_proof_of_a_violated_property():
    system = toggles(broken=True)
    prop = system.properties[0]
    assert not holds_for(system, prop.formula, 3)
    ctx = context(system)
    assert termgraph.prove(system, prop, termgraph.generate(system, ctx, budget=60.0), ctx) is None


def test_proof_keeps_only_the_lemmas_the_property_needs():
    """An invariant the property does not need (``r`` stays false) stays out of the proof."""
    b = SystemBuilder("toggles_and_idle")
    m = b.mgr
    p, p_n = b.state("p", BOOL)
    q, q_n = b.state("q", BOOL)
    r, r_n = b.state("r", BOOL)
    wa, _ = b.state("a", BOOL)
    wb, _ = b.state("b", BOOL)
    b.add_init(m.And(m.Not(p), m.Not(q), m.Not(r)))
    b.add_trans(m.Iff(p_n, m.Not(p)))
    b.add_trans(m.Iff(q_n, m.Not(q)))
    b.add_trans(m.Iff(r_n, r))
    b.add_assumption(m.Iff(wa, p))
    b.add_assumption(m.Iff(wb, m.Not(q)))
    b.add_property(Property("excl", m.Not(m.And(wa, wb))))
    system = b.build()
    prop = system.properties[0]
    lemmas = [m.Not(r), m.Iff(p, q)]
    for lemma in lemmas:
        assert holds_for(system, lemma, 6)
    proof = termgraph.prove(system, prop, lemmas, context(system))
    assert proof is not None and proof.k == 1
    (phi,) = parse_lemmas(system, [proof.invariant])
    assert r not in system.env.fvo.get_free_variables(phi)
    checker = registry.backend("cvc5").solver(system.env)
    assert check_proof(system, prop, proof, phi, checker) is None


def test_implied_bounds_keep_the_strongest_bound_of_each_side():
    b = SystemBuilder("counter")
    m = b.mgr
    x, x_n = b.state("x", INT)
    b.add_init(m.Equals(x, m.Int(3)))
    b.add_trans(m.Equals(x_n, x))
    system = b.build()
    consts = {c: m.Int(c) for c in (0, 3, 5, 9)}
    terms = [termgraph.Term(m.LE(consts[3], x), x, "ge", 3),
             termgraph.Term(m.LE(consts[0], x), x, "ge", 0),
             termgraph.Term(m.LE(x, consts[5]), x, "le", 5),
             termgraph.Term(m.LE(x, consts[9]), x, "le", 9)]
    cands = [("true", 0, 0), ("true", 1, 1), ("true", 2, 2), ("true", 3, 3)]
    kept, spare = termgraph.implied_bounds(terms, cands)
    assert sorted(kept) == [("true", 0, 0), ("true", 2, 2)]
    assert sorted(map(sorted, spare)) == [[("true", 0, 0), ("true", 1, 1)], [("true", 2, 2), ("true", 3, 3)]]
    # what was dropped follows from what was kept (asked of cvc5, not of the graph)
    solver = registry.backend("cvc5").solver(system.env)
    forms = [t.formula for t in terms]
    solver.add(m.And([termgraph.TermGraph.render(m, c, forms) for c in kept]))
    for c in cands:
        assert not solver.check([m.Not(termgraph.TermGraph.render(m, c, forms))])


def test_query_limits_stretch_while_the_process_waits_for_the_processor():
    pace = termgraph.Pace()
    assert pace.limit(2.0) == 2.0
    time.sleep(0.3)  # wall time passes, processor time does not
    assert pace.limit(2.0) == 2.0 * MAX_STRETCH
