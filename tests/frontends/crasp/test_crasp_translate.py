"""The acceptor translation agrees with the reference evaluator (DESIGN §7: the evaluator is the
reference; the paper's position-counter and window slips must not be copied)."""

from __future__ import annotations

import itertools

from crasp_strategies import program_and_words, programs
from hypothesis import given, settings

from kinduct.frontends.crasp.evaluate import accepts, evaluate
from kinduct.frontends.crasp.parser import parse
from kinduct.frontends.crasp.translate import rule_formulas, to_acceptor
from kinduct.kernel import registry
from kinduct.kernel.acceptor import Query, language_query
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.unroll import Unroller
from kinduct.kernel.verdict import Answer


def run_acceptor(acceptor, word):
    """Rule values along ``word`` by solving the acceptor's unrolled init/trans/assumptions."""
    system = acceptor.system
    mgr = system.env.formula_manager
    solver = registry.backend("z3").solver(system.env)
    ub = Unroller(system)
    solver.add(ub.at(system.init, 0))
    for k, letter in enumerate(word):
        if k:
            solver.add(ub.at(system.trans, k - 1))
        for a in system.assumptions:
            solver.add(ub.at(a, k))
        solver.add(mgr.Equals(ub.timed(acceptor.letter, k), mgr.Int(acceptor.alphabet.index(letter))))
    assert solver.check(), "the acceptor has no run on this word"
    formulas = rule_formulas(acceptor)
    out = {name: [] for name in formulas}
    accept = []
    for k in range(len(word)):
        timed = ub.step_vars(k)
        consts = solver.constants(timed)
        for name, f in formulas.items():
            v = system.env.simplifier.simplify(system.env.substituter.substitute(ub.at(f, k), consts))
            out[name].append(v.constant_value())
        v = system.env.simplifier.simplify(system.env.substituter.substitute(ub.at(acceptor.accept, k),
                                                                             consts))
        accept.append(v.constant_value())
    return out, accept


def _plain(values):
    return {k: [int(x) if not isinstance(x, bool) else x for x in v] for k, v in values.items()}


@settings(max_examples=60, deadline=None)
@given(program_and_words(n_words=3, max_len=9))
def test_acceptor_runs_agree_with_evaluator(pw):
    p, words = pw
    acc = to_acceptor(p)
    for w in words:
        if not w:
            continue
        got, accept = run_acceptor(acc, w)
        assert _plain(got) == evaluate(p, w), w
        assert accept == [accepts(p, w[:k + 1]) for k in range(len(w))]


def test_windows_and_periods_edge_cases():
    # Windows reaching before position 1, start = end, start = 0; periods with m = 1 and
    # offsets 0 (positions m, 2m, ...): the paper's slips would change these values.
    p = parse("alphabet 'a', 'b'\n"
              "W0 := #[0,0]('a')\nW1 := #[1,3]('a')\nW2 := #[2,2]('b')\nP1 := period(1, 0)\n"
              "P30 := period(3, 0)\nP31 := period(3, 1)\nX := W1 + W2 > 1 and P31 or P30 and P1\n")
    acc = to_acceptor(p)
    for w in ["abaab", "a", "bbbbbbb", "aaaaaaaa"]:
        got, accept = run_acceptor(acc, list(w))
        assert _plain(got) == evaluate(p, list(w))
    ev = evaluate(p, list("abaab"))
    assert ev["W1"] == [0, 1, 1, 2, 2]
    assert ev["P31"] == [True, False, False, True, False]


def _shortest_rejected(p, max_len):
    for n in range(1, max_len + 1):
        for w in itertools.product(p.alphabet, repeat=n):
            if not accepts(p, list(w)):
                return list(w)
    return None


@settings(max_examples=12, deadline=None)
@given(programs(max_rules=3, alphabet=("a", "b")))
def test_bmc_finds_the_shortest_rejected_word(p):
    system = language_query(Query.UNIVERSAL, to_acceptor(p))
    verdict = run(system, RunOptions(engines=("bmc",), max_k=4, timeout=60))[0]
    expected = _shortest_rejected(p, 5)
    if verdict.answer is Answer.FALSIFIABLE:
        from kinduct.kernel.acceptor import word_of

        word = word_of(verdict.trace, system.alphabet)
        assert expected is not None and len(word) == len(expected)
        assert not accepts(p, word)
    else:
        assert verdict.answer is Answer.UNKNOWN, verdict
        assert expected is None


