"""Invariant generation on tiny systems: "so far" flags and the invariants that hold under them."""

from __future__ import annotations

import pytest
from pysmt.typing import BOOL, INT

from kinduct.kernel import registry
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.plugins.engines.analysis import first_flag, latches
from kinduct.plugins.engines.discovery import discover
from tests.plugins.engines.systems import context


def swapping_under_env() -> TransitionSystem:
    """``x`` and ``y`` swap while the input ``good`` holds and grow once it fails; ``ok`` is
    "good so far".  ``ok -> x <= 1`` holds, but only ``ok -> y <= 1`` makes it 1-inductive, and
    neither bound holds once ``ok`` has fallen.  ``bad`` never rises and starts false."""
    b = SystemBuilder("swap")
    m = b.mgr
    ok, ok_n = b.state("ok", BOOL)
    bad, bad_n = b.state("bad", BOOL)
    x, x_n = b.state("x", INT)
    y, y_n = b.state("y", INT)
    good = b.input("good", BOOL)
    b.add_init(m.And(ok, m.Not(bad), m.Equals(x, m.Int(0)), m.Equals(y, m.Int(1))))
    b.add_trans(m.Iff(ok_n, m.And(ok, good)))
    b.add_trans(m.Iff(bad_n, m.And(bad, good)))
    b.add_trans(m.Equals(x_n, m.Ite(good, y, m.Plus(x, m.Int(3)))))
    b.add_trans(m.Equals(y_n, m.Ite(good, x, m.Plus(y, m.Int(5)))))
    b.add_property(Property("P", m.Implies(ok, m.LE(x, m.Int(1)))))
    return b.build()


def test_latches_are_the_flags_that_start_true_and_never_rise():
    system = swapping_under_env()
    solver = registry.backend("z3").solver(system.env)
    ok = system.state_vars[0]
    assert first_flag(system, solver) is None
    assert latches(system, solver) == [ok]  # ``bad`` never rises but never starts true


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_invariants_under_a_so_far_flag_prove_the_property(solver):
    system = swapping_under_env()
    m = system.env.formula_manager
    ctx = context(system, solver)
    # The budget only cuts the simulation short; a generous one keeps a loaded machine from
    # turning this into a test of the machine's speed (the runs and depth bound the work).
    facts, proved = discover(system, ctx, budget=120.0)
    check = registry.backend(solver).solver(system.env)
    check.add(m.And([*facts, *proved]))
    assert not check.check([m.Not(system.properties[0].formula)])


def with_unrelated_state() -> TransitionSystem:
    """:func:`swapping_under_env` beside a counter ``z`` and a wire ``w = z + 1`` that the
    property does not read (outside its cone of influence)."""
    b = SystemBuilder("swap_beside")
    m = b.mgr
    ok, ok_n = b.state("ok", BOOL)
    x, x_n = b.state("x", INT)
    y, y_n = b.state("y", INT)
    z, z_n = b.state("z", INT)
    w, _ = b.state("w", INT)
    good = b.input("good", BOOL)
    b.add_init(m.And(ok, m.Equals(x, m.Int(0)), m.Equals(y, m.Int(1)), m.Equals(z, m.Int(0))))
    b.add_trans(m.Iff(ok_n, m.And(ok, good)))
    b.add_trans(m.Equals(x_n, m.Ite(good, y, m.Plus(x, m.Int(3)))))
    b.add_trans(m.Equals(y_n, m.Ite(good, x, m.Plus(y, m.Int(5)))))
    b.add_trans(m.Equals(z_n, m.Plus(z, m.Int(1))))
    b.add_assumption(m.Equals(w, m.Plus(z, m.Int(1))))
    b.add_property(Property("P", m.Implies(ok, m.LE(x, m.Int(1)))))
    return b.build()


def test_the_term_graph_proves_on_the_cone_and_the_certificate_holds_on_the_whole_system():
    """invgen's term graph works on the property's cone: no solver of it sees a variable
    outside the cone (``z``, ``w``), and its proof is checked here against the whole system
    (``kernel.certify``).  No discovery rounds: they work on the whole system."""
    from kinduct.kernel.certify import certify, certify_proof
    from kinduct.kernel.lemmas import parse_lemmas
    from tests.plugins.engines.systems import decide

    system = with_unrelated_state()
    ctx = context(system, options=registry.engine("invgen").Options(rounds=0))
    seen: set[str] = set()  # the variables of every formula invgen's solvers were given
    make = ctx.make_solver

    class Recording:
        def __init__(self) -> None:
            self.inner = make()

        def __getattr__(self, name: str):
            return getattr(self.inner, name)

        def add(self, formula) -> None:
            seen.update(v.symbol_name() for v in system.env.fvo.get_free_variables(formula))
            self.inner.add(formula)

        def add_all(self, formulas) -> None:
            for f in formulas:
                self.add(f)

    ctx.make_solver = Recording
    (verdict,) = decide("invgen", system, ctx).values()
    assert {"x", "ok"} <= seen and not seen & {"z", "w", "z'"}, seen
    assert verdict.answer.value == "valid"
    text = verdict.proof.invariant if verdict.proof is not None else verdict.invariant
    assert text is not None
    (phi,) = parse_lemmas(system, [text])
    read = {v.symbol_name() for v in system.env.fvo.get_free_variables(phi)}
    assert read and not read & {"z", "w"}
    prop = system.properties[0]
    if verdict.proof is not None:
        assert certify_proof(system, prop, verdict.proof, "z3") is None
    else:
        assert certify(system, prop, verdict.invariant, "z3") is None
