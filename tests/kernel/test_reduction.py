"""The reduction of acceptor products beyond merging: saturated counters
(kernel/saturation.py), assumed register ranges (kernel/ranges.py) and assumed invariants of
sampled paths (kernel/sampled.py): which counters saturate and where, which ranges and
invariants are found, and that the reduced acceptor products (``language_query``'s default)
behave as the products as built.

The behaviour check does not reuse the passes: the product as built and the reduced one are
unrolled here by hand on the same letters, and a solver is asked for a word of at most
``DEPTH`` letters (longer than every cap, so counts past their caps are covered) on which an
acceptor's output or the query's property differs, or on which a state-only assumption of
the reduced product (a range) fails: neither exists.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pysmt.typing import BOOL, INT

from kinduct.frontends.crasp.queries import acceptors
from kinduct.kernel import registry
from kinduct.kernel.acceptor import Query, language_query, merged_product, reduced_product
from kinduct.kernel.ranges import bound_registers
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.sampled import find_invariants, nullspace
from kinduct.kernel.saturation import saturate_counters
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer

PAIRS = Path(__file__).resolve().parents[2] / "examples" / "crasp" / "pairs"
ALL_PAIRS = sorted(f"{p.parent.name}/{p.name.removesuffix('.a.crasp')}"
                   for p in PAIRS.glob("*/*.a.crasp"))
#: Every pair, half of them in the default suite (every other one; ``test_registers.py``'s
#: check of the reduction takes the other half there) and all in the slow suite.
SOME_PAIRS = [pytest.param(pair, marks=() if i % 2 == 1 else (pytest.mark.slow,))
              for i, pair in enumerate(ALL_PAIRS)]
CRASP = PAIRS.parent
#: The Lucent acceptors against their C-RASP programs (``pre`` values: invariants to find).
LUCENT = ["majority", "dyck1"]
DEPTH = 8


def counting(update: str, prop: str) -> TransitionSystem:
    """Int registers x, y from 0 reading an int input i in [-1, 1]: ``update`` picks x's
    update (``bit``: x + ite(i = 1, 1, 0); ``input``: x + i; ``sum``: x + y) and y' = y + 1;
    ``prop`` the property (``lt3``: x + ite(i = 0, 1, 0) < 3; ``vs_y``: x <= y)."""
    b = SystemBuilder("count")
    mgr = b.mgr
    i = b.input("i", INT)
    b.add_assumption(mgr.And(mgr.LE(mgr.Int(-1), i), mgr.LE(i, mgr.Int(1))))
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_init(mgr.Equals(y, mgr.Int(0)))
    bit = mgr.Ite(mgr.Equals(i, mgr.Int(1)), mgr.Int(1), mgr.Int(0))
    b.update(x, {"bit": mgr.Plus(x, bit), "input": mgr.Plus(x, i), "sum": mgr.Plus(x, y)}[update])
    b.update(y, mgr.Plus(y, mgr.Int(1)))
    zero = mgr.Ite(mgr.Equals(i, mgr.Int(0)), mgr.Int(1), mgr.Int(0))
    formula = {"lt3": mgr.LT(mgr.Plus(x, zero), mgr.Int(3)), "vs_y": mgr.LE(x, y)}[prop]
    b.add_property(Property("p", formula))
    return b.build()


@pytest.mark.parametrize(("update", "prop", "caps"), [
    ("bit", "lt3", {"x": 4}),    # x + t < 3, t in [0, 1]: decided from x >= 3 - 0 + 1; y unread
    ("input", "lt3", {}),        # x may decrease
    ("sum", "lt3", {}),          # y read outside a comparison; x grows by an unbounded term
    ("bit", "vs_y", {}),         # two counters compared with each other
])
def test_which_counters_saturate(update, prop, caps):
    system = counting(update, prop)
    result = saturate_counters(system)
    unread = {"y": 0} if update != "sum" and prop != "vs_y" else {}
    assert {str(v): c for v, c in result.caps.items()} == {**caps, **unread}
    # same verdict before and after, by kind (x reaches 3 after three letters 1)
    options = RunOptions(engines=("kind",), max_k=6, timeout=30)
    (before,) = run(system, options)
    (after,) = run(result.system, options)
    assert after.answer is before.answer
    if prop == "lt3":
        assert before.answer is Answer.FALSIFIABLE
        assert len(after.trace.steps) == len(before.trace.steps)
    if (update, prop) == ("bit", "lt3"):  # x is 2 after two letters 1, then a 0 violates it
        assert len(after.trace.steps) == 3


def position(modulus: int) -> TransitionSystem:
    """p counts positions modulo ``modulus`` (p' = ite(p = m - 1, 0, p + 1)), n counts them
    (n' = n + 1: its candidate range [0, 1] is not kept by a step); property p < m."""
    b = SystemBuilder("pos")
    mgr = b.mgr
    p, _ = b.state("p", INT)
    n, _ = b.state("n", INT)
    b.add_init(mgr.Equals(p, mgr.Int(0)))
    b.add_init(mgr.Equals(n, mgr.Int(0)))
    b.update(p, mgr.Ite(mgr.Equals(p, mgr.Int(modulus - 1)), mgr.Int(0),
                        mgr.Plus(p, mgr.Int(1))))
    b.update(n, mgr.Plus(n, mgr.Int(1)))
    b.add_property(Property("p", mgr.LT(p, mgr.Int(modulus))))
    return b.build()


@pytest.mark.parametrize("modulus", [2, 3, 5])
def test_ranges_found_are_invariants(modulus):
    system = position(modulus)
    z3 = registry.backend("z3")
    result = bound_registers(system, lambda: z3.solver(system.env))
    assert {str(v): r for v, r in result.ranges.items()} == {"p": (0, modulus - 1)}
    # the range holds on the original system: kind proves it there (not from the assumption)
    mgr = system.env.formula_manager
    (p, _) = system.state_vars
    inside = mgr.And(mgr.LE(mgr.Int(0), p), mgr.LE(p, mgr.Int(modulus - 1)))
    check = system.evolve(properties=(Property("range", inside),))
    (verdict,) = run(check, RunOptions(engines=("kind",), max_k=modulus + 1, timeout=30))
    assert verdict.answer is Answer.VALID


def _unrolled(system: TransitionSystem, tag: str, letters):
    """``system`` on ``len(letters)`` steps, every variable renamed ``tag@t`` but the letter:
    the facts (init, trans, the assumptions that read an input), the state-only assumptions
    per step, the property and the acceptors' outputs per step."""
    env = system.env
    mgr, sub = env.formula_manager, env.substituter.substitute
    inputs = set(system.input_vars)
    fv = env.fvo.get_free_variables
    prev = dict(zip(system.next_vars, system.state_vars, strict=True))
    steps = [{v: letters[t] if v.symbol_name() == "letter" else
              mgr.Symbol(f"{tag}{v.symbol_name()}@{t}", v.symbol_type())
              for v in (*system.state_vars, *system.input_vars)} for t in range(len(letters))]
    facts, state_only = [sub(system.init, steps[0])], []
    for t, step in enumerate(steps):
        for a in system.assumptions:
            (facts if fv(a) & inputs else state_only).append(sub(a, step))
        if t + 1 < len(steps):
            facts.append(sub(system.trans, {**step, **{n: steps[t + 1][c]
                                                       for n, c in prev.items()}}))
    (prop,) = system.properties
    outputs = [[s[v] for v in system.input_vars if v.symbol_name().startswith("accept_")]
               for s in steps]
    return facts, state_only, [sub(prop.formula, s) for s in steps], outputs


def _files(pair: str) -> list[str]:
    if pair in LUCENT:
        return [str(CRASP / "lucent" / f"{pair}.lus"), str(CRASP / f"{pair}.crasp")]
    a = PAIRS / f"{pair}.a.crasp"
    return [str(a), str(a.with_name(a.name.replace(".a.crasp", ".b.crasp")))]


@pytest.mark.parametrize("pair", [*SOME_PAIRS, *LUCENT])
def test_reduced_product_behaves_as_built(pair):
    sides = acceptors(_files(pair))
    for query in (Query.EQUIV, Query.INCLUDE):
        built = language_query(query, *sides, merge=False)
        reduced = reduced_product(built)
        # what the queries decide by default is that reduced system
        default = language_query(query, *sides)
        assert [str(v) for v in default.assumptions] == [str(v) for v in reduced.assumptions]
        assert default.trans.serialize() == reduced.trans.serialize()
        mgr = reduced.env.formula_manager
        letters = [mgr.Symbol(f"letter@{t}", INT) for t in range(DEPTH)]
        f1, s1, p1, o1 = _unrolled(built, "o.", letters)
        f2, s2, p2, o2 = _unrolled(reduced, "r.", letters)
        assert not s1  # as built, every assumption reads the letter or an output
        differ = [mgr.Not(mgr.Iff(x, y)) for t in range(DEPTH)
                  for x, y in [(p1[t], p2[t]), *zip(o1[t], o2[t], strict=True)]]
        with reduced.env.factory.Solver(name="z3") as solver:
            solver.add_assertion(mgr.And(f1 + f2))
            assert solver.solve()  # satisfiable: the checks below are not vacuous
            solver.push()
            solver.add_assertion(mgr.Or(differ))
            assert not solver.solve(), f"{pair} {query.value}: an output or the property differs"
            solver.pop()
            if s2:
                solver.add_assertion(mgr.Not(mgr.And(s2)))
                assert not solver.solve(), f"{pair} {query.value}: an assumed invariant fails"


@pytest.mark.parametrize("pair", ["equiv/containsab", "equiv/tomita2", "equiv/tomita7"])
def test_saturated_counts_make_an_equivalence_inductive(pair):
    """Equivalences with no equal registers, whose counts are only compared with constants:
    merged only, ``kind`` cannot prove them at any small depth (an unreachable state with a
    large count starts an arbitrarily long path); reduced, it proves them at depth 4."""
    a = PAIRS / f"{pair}.a.crasp"
    sides = acceptors([str(a), str(a.with_name(a.name.replace(".a.crasp", ".b.crasp")))])
    built = language_query(Query.EQUIV, *sides, merge=False)
    options = RunOptions(engines=("kind",), max_k=4, timeout=30)
    assert run(merged_product(built), options)[0].answer is Answer.UNKNOWN
    assert run(language_query(Query.EQUIV, *sides), options)[0].answer is Answer.VALID


def test_nullspace():
    rows = [[1, 2, 3, 1], [2, 4, 6, 1], [0, 1, 1, 1]]
    basis = nullspace(rows)
    assert len(basis) == 1  # rank 3 of 4 columns: one relation
    for vec in basis:
        assert any(vec)
        assert all(sum(c * x for c, x in zip(vec, row, strict=True)) == 0 for row in rows)
    assert nullspace([[0, 0], [0, 0]]) == [[1, 0], [0, 1]]


@pytest.mark.parametrize("pair", LUCENT)
def test_sampled_invariants_relate_the_lucent_pre_to_the_counts(pair):
    """``pre d`` (``pre h``) is the difference of the C-RASP side's two counts after the
    first step: found; with it (and, for dyck1, ``pre bad`` against the capped counts) the
    equivalence becomes 1-inductive."""
    sides = acceptors(_files(pair))
    built = language_query(Query.EQUIV, *sides, merge=False)
    reduced = reduced_product(built)
    found = {str(a) for a in reduced.assumptions} - {str(a) for a in built.assumptions}
    pre = "d" if pair == "majority" else "h"
    assert any(f"A.%pre.{pre}" in f and "count1" in f and "count2" in f for f in found), found
    options = RunOptions(engines=("kind",), max_k=2, timeout=30)
    assert run(merged_product(built), options)[0].answer is Answer.UNKNOWN
    assert run(reduced, options)[0].answer is Answer.VALID


def late_divergence() -> TransitionSystem:
    """x counts steps, y too until x reaches 20 (then 0), p is pre x (no initial value),
    ``first`` a first-step flag; property y = x: true on every sampled path (shorter), false
    at step 21."""
    b = SystemBuilder("late")
    mgr = b.mgr
    x, _ = b.state("x", INT)
    y, _ = b.state("y", INT)
    p, _ = b.state("p", INT)
    first, _ = b.state("first", BOOL)
    b.add_init(first)
    b.update(first, mgr.FALSE())
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.add_init(mgr.Equals(y, mgr.Int(0)))
    b.update(x, mgr.Plus(x, mgr.Int(1)))
    b.update(y, mgr.Ite(mgr.LE(mgr.Int(20), x), mgr.Int(0), mgr.Plus(y, mgr.Int(1))))
    b.update(p, x)
    b.add_property(Property("same", mgr.Equals(y, x)))
    return b.build()


def test_sampled_equalities_true_on_short_paths_only_are_dropped():
    system = late_divergence()
    z3 = registry.backend("z3")
    result = find_invariants(system, lambda: z3.solver(system.env))
    # kept: p = x - 1 after the first step; dropped: y = x (not kept by the step from x = 20)
    assert any("p" in str(e) and "first" in str(e) for e in result.invariants)
    assert not any("y" in str(e) and "x" in str(e) for e in result.invariants)
    options = RunOptions(engines=("bmc",), max_k=25, timeout=60)
    (verdict,) = run(result.system, options)
    assert verdict.answer is Answer.FALSIFIABLE
    assert len(verdict.trace.steps) == 22
