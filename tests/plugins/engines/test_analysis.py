"""The system analysis: the structure a frontend declares is read, not rediscovered, and one
run of the portfolio computes the analysis once (engine processes inherit it)."""

from __future__ import annotations

from pathlib import Path

from pysmt.typing import INT

from kinduct.kernel import registry
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer
from kinduct.plugins.engines import analysis
from kinduct.plugins.engines.analysis import analyze, copy_invariants, first_flag, register_updates


class NoSolver:
    """Fails the test if the analysis asks a solver anything."""

    def __getattr__(self, name: str):
        raise AssertionError(f"the solver was used ({name})")


def lustre_like(declared: bool = True) -> TransitionSystem:
    """``x`` counts up; ``p`` and ``q`` both remember ``x`` (two ``pre x``); ``q <= x`` after the
    first step.  With ``declared`` the registers and the first-step flag are given as data."""
    b = SystemBuilder("lustre_like")
    m = b.mgr
    x, x_n = b.state("x", INT)
    p, p_n = b.state("p", INT)
    q, q_n = b.state("q", INT)
    b.add_init(m.Equals(x, m.Int(0)))
    if declared:
        first = b.first_step_flag()
        b.update(x, m.Plus(x, m.Int(1)))
        b.update(p, x)
        b.update(q, x)
    else:
        from pysmt.typing import BOOL

        first, first_n = b.state("%first", BOOL)
        b.add_init(first)
        b.add_trans(m.Not(first_n))
        b.add_trans(m.Equals(x_n, m.Plus(x, m.Int(1))))
        b.add_trans(m.Equals(p_n, x))
        b.add_trans(m.Equals(q_n, x))
    b.add_property(Property("q_below", m.Or(first, m.LT(q, x))))
    return b.build()


def test_declared_structure_is_read_without_a_solver():
    system = lustre_like()
    m = system.env.formula_manager
    x, p, q, first = (m.get_symbol(n) for n in ("x", "p", "q", "%first"))
    assert system.structure.first == first
    assert first_flag(system, NoSolver()) == first
    assert register_updates(system) == {x: m.Plus(x, m.Int(1)), p: x, q: x}


def test_structure_found_in_trans_when_not_declared():
    declared, found = lustre_like(True), lustre_like(False)
    solver = registry.backend("z3").solver(found.env)
    assert found.structure.updates == {}
    assert first_flag(found, solver).symbol_name() == "%first"
    assert {(r.symbol_name(), str(t)) for r, t in register_updates(found).items()} == \
        {(r.symbol_name(), str(t)) for r, t in register_updates(declared).items()}
    # ``p`` and ``q`` copy the same stream: one (checked) lemma ties them after the first step.
    (lemma,) = copy_invariants(found, solver)
    assert str(lemma) == "(%first | (p = q))"


def test_one_analysis_per_run(tmp_path: Path, monkeypatch):
    """The runner prepares ic3 and invgen in its own process before forking them: the forked
    engine processes reuse that analysis (a computation in a child would append a line too)."""
    log = tmp_path / "analyses.log"
    compute = analysis.compute

    def counted(system, make_solver):
        with log.open("a") as fh:
            fh.write("computed\n")
        return compute(system, make_solver)

    monkeypatch.setattr(analysis, "compute", counted)
    system = lustre_like()
    # Only engines that need the analysis: one that decides while it is computed ends the run
    # inside the preparation, which is then dropped unfinished.
    verdicts = run(system, RunOptions(engines=("ic3", "invgen"), timeout=60))
    assert [v.answer for v in verdicts] == [Answer.VALID]
    assert log.read_text().splitlines() == ["computed"]
    analyze(system, lambda: registry.backend("z3").solver(system.env))  # memoised: no further computation
    assert log.read_text().splitlines() == ["computed"]
