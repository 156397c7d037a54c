"""Merging equal registers (kernel/registers.py): which registers merge, and that the reduced
acceptor products have the same behaviour as the products as built.

The behaviour check does not reuse the pass: a miter of the two systems (the original and the
reduced one, on the same letters) is unrolled here by hand and a solver is asked for a word of
at most ``DEPTH`` letters on which an acceptor's output or the query's property differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pysmt.typing import INT

from kinduct.frontends.crasp.queries import acceptors
from kinduct.kernel import registry
from kinduct.kernel.acceptor import Query, language_query
from kinduct.kernel.registers import merge_registers, solver_equal
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer

PAIRS = Path(__file__).resolve().parents[2] / "examples" / "crasp" / "pairs"
ALL_PAIRS = sorted(f"{p.parent.name}/{p.name.removesuffix('.a.crasp')}"
                   for p in PAIRS.glob("*/*.a.crasp"))
#: Every pair, half of them in the default suite (every other one; ``test_reduction.py``'s
#: check of the reduction takes the other half there) and all in the slow suite.
SOME_PAIRS = [pytest.param(pair, marks=() if i % 2 == 0 else (pytest.mark.slow,))
              for i, pair in enumerate(ALL_PAIRS)]
DEPTH = 6


def two_counters(step_x: int, step_y: int, init_y: int = 0, swap: bool = False) -> TransitionSystem:
    """Registers x, y (ints) reading an input i: x' = x + step_x*i, y' = y + step_y*i (or,
    with ``swap``, x' = y and y' = x); property x = y."""
    b = SystemBuilder("two")
    mgr = b.mgr
    i = b.input("i", INT)
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_init(mgr.Equals(y, mgr.Int(init_y)))
    if swap:
        b.update(x, y)
        b.update(y, x)
    else:
        b.update(x, mgr.Plus(x, mgr.Times(mgr.Int(step_x), i)))
        b.update(y, mgr.Plus(y, mgr.Times(mgr.Int(step_y), i)))
    b.add_property(Property("same", mgr.Equals(x, y)))
    return b.build()


@pytest.mark.parametrize(("system", "merged"), [
    (two_counters(1, 1), True),
    (two_counters(1, 2), False),
    (two_counters(1, 1, init_y=1), False),
    (two_counters(0, 0, swap=True), True),          # equal by mutual induction
    (two_counters(0, 0, init_y=1, swap=True), False),
])
def test_which_registers_merge(system, merged):
    result = merge_registers(system)
    assert bool(result.replaced) is merged
    assert len(result.system.state_vars) == 2 - merged
    # the verdict of the reduced system is the truth of "x = y" on every path
    (verdict,) = run(result.system, RunOptions(engines=("kind",), max_k=4, timeout=30))
    assert verdict.answer is (Answer.VALID if merged else Answer.FALSIFIABLE)


def bit_counters(assume_bit: bool) -> TransitionSystem:
    """x' = x + i and y' = y + ite(i = 1, 1, 0): equal registers when ``assume_bit`` makes the
    input i a bit (0 <= i <= 1), not otherwise; property x = y."""
    b = SystemBuilder("bits")
    mgr = b.mgr
    i = b.input("i", INT)
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_init(mgr.Equals(y, mgr.Int(0)))
    b.update(x, mgr.Plus(x, i))
    b.update(y, mgr.Plus(y, mgr.Ite(mgr.Equals(i, mgr.Int(1)), mgr.Int(1), mgr.Int(0))))
    if assume_bit:
        b.add_assumption(mgr.And(mgr.GE(i, mgr.Int(0)), mgr.LE(i, mgr.Int(1))))
    b.add_property(Property("same", mgr.Equals(x, y)))
    return b.build()


@pytest.mark.parametrize("assume_bit", [True, False])
def test_updates_equal_by_the_solver_under_the_assumptions(assume_bit):
    system = bit_counters(assume_bit)
    assert not merge_registers(system).replaced  # not the same term
    z3 = registry.backend("z3")
    result = merge_registers(system, solver_equal(system.env, lambda: z3.solver(system.env)))
    assert bool(result.replaced) is assume_bit
    (verdict,) = run(result.system, RunOptions(engines=("kind",), max_k=4, timeout=30))
    assert verdict.answer is (Answer.VALID if assume_bit else Answer.FALSIFIABLE)


def _unrolled(system: TransitionSystem, tag: str, depth: int, letters):
    """init, trans, assumptions of ``system`` on ``depth`` steps, every variable renamed
    ``tag@t`` except the letter (``letters[t]``); the property and the outputs per step."""
    mgr = system.env.formula_manager
    sub = system.env.substituter.substitute
    prev = {n: c for c, n in zip(system.state_vars, system.next_vars, strict=True)}

    def at(t: int) -> dict:
        out = {}
        for v in (*system.state_vars, *system.input_vars):
            name = v.symbol_name()
            out[v] = letters[t] if name == "letter" else mgr.Symbol(f"{tag}{name}@{t}",
                                                                    v.symbol_type())
        return out

    steps = [at(t) for t in range(depth)]
    facts = [sub(system.init, steps[0])]
    for t in range(depth):
        facts += [sub(a, steps[t]) for a in system.assumptions]
        if t + 1 < depth:
            m = dict(steps[t])
            m.update({n: steps[t + 1][c] for n, c in prev.items()})
            facts.append(sub(system.trans, m))
    (prop,) = system.properties
    outputs = [[steps[t][v] for v in system.input_vars if v.symbol_name().startswith("accept_")]
               for t in range(depth)]
    return facts, [sub(prop.formula, s) for s in steps], outputs


@pytest.mark.parametrize("pair", SOME_PAIRS)
def test_reduced_product_behaves_as_built(pair):
    a = PAIRS / f"{pair}.a.crasp"
    b = a.with_name(a.name.replace(".a.crasp", ".b.crasp"))
    z3 = registry.backend("z3")
    for query in (Query.EQUIV, Query.INCLUDE):
        sides = acceptors([str(a), str(b)])
        built = language_query(query, *sides, merge=False)
        env = built.env
        reduced = merge_registers(built, solver_equal(env, lambda env=env: z3.solver(env))).system
        # what the queries decide by default is that reduced system
        default = language_query(query, *sides)
        assert [str(v) for v in default.state_vars] == [str(v) for v in reduced.state_vars]
        mgr = built.env.formula_manager
        letters = [mgr.Symbol(f"letter@{t}", INT) for t in range(DEPTH)]
        f1, p1, o1 = _unrolled(built, "o.", DEPTH, letters)
        f2, p2, o2 = _unrolled(reduced, "r.", DEPTH, letters)
        differ = [mgr.Not(mgr.Iff(x, y)) for t in range(DEPTH)
                  for x, y in [(p1[t], p2[t]), *zip(o1[t], o2[t], strict=True)]]
        with built.env.factory.Solver(name="z3") as solver:
            solver.add_assertion(mgr.And(f1 + f2))
            assert solver.solve()  # the unrollings are satisfiable: the check is not vacuous
            solver.add_assertion(mgr.Or(differ))
            assert not solver.solve(), f"{pair} {query.value}: the reduced product differs"


def test_merged_counts_make_an_equivalence_inductive():
    """tomita1: ``#('b') = 0`` against ``not (#(Bad) >= 1)`` with ``Bad := 'b'``: the two
    counts are one register in the reduced product, where k-induction proves the query at a
    small k; as built, the counts can differ in an unreachable state, and it does not."""
    a = PAIRS / "equiv" / "tomita1.a.crasp"
    sides = acceptors([str(a), str(a.with_name("tomita1.b.crasp"))])
    options = RunOptions(engines=("kind",), max_k=3, timeout=30)
    (merged,) = run(language_query(Query.EQUIV, *sides), options)
    assert merged.answer is Answer.VALID
    (built,) = run(language_query(Query.EQUIV, *sides, merge=False), options)
    assert built.answer is Answer.UNKNOWN
