"""Language queries on hand-built acceptors, through the kernel runner."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pysmt.typing import BOOL, INT

from kinduct.kernel.acceptor import Acceptor, Query, language_query, word_of
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import SystemBuilder
from kinduct.kernel.verdict import Answer


def count_acceptor(alphabet: Sequence[str], letter_counted: str, parity: int,
                   name: str = "A") -> Acceptor:
    """Words whose number of ``letter_counted`` is congruent to ``parity`` mod 2 (Boolean state)."""
    b = SystemBuilder(name)
    mgr = b.mgr
    letter = b.input("letter", INT)
    odd, odd_next = b.state("odd_before", BOOL)
    hit = mgr.Equals(letter, mgr.Int(alphabet.index(letter_counted)))
    now_odd = mgr.Xor(odd, hit)
    b.add_init(mgr.Not(odd))
    b.add_trans(mgr.Iff(odd_next, now_odd))
    b.add_assumption(mgr.And(mgr.GE(letter, mgr.Int(0)), mgr.LT(letter, mgr.Int(len(alphabet)))))
    accept = now_odd if parity else mgr.Not(now_odd)

    def accepts(word: Sequence[str]) -> bool:
        return word.count(letter_counted) % 2 == parity

    return Acceptor(b.build(), tuple(alphabet), letter, accept, name, accepts)


def test_counter_and_parity_acceptors_agree_on_words():
    system = language_query(Query.EQUIV, count_acceptor("ab", "a", 0), counter_acceptor("ab", "a"))
    (verdict,) = run(system, RunOptions(engines=("bmc",), solver="z3", max_k=8, timeout=60))
    assert verdict.answer is Answer.UNKNOWN and verdict.k == 8  # no difference up to length 9


def counter_acceptor(alphabet: Sequence[str], letter_counted: str, name: str = "B") -> Acceptor:
    """The same even-count language with an integer counter (needs an invariant to compare)."""
    b = SystemBuilder(name)
    mgr = b.mgr
    letter = b.input("letter", INT)
    c, c_next = b.state("count_before", INT)
    now = mgr.Plus(c, mgr.Ite(mgr.Equals(letter, mgr.Int(alphabet.index(letter_counted))),
                              mgr.Int(1), mgr.Int(0)))
    b.add_init(mgr.Equals(c, mgr.Int(0)))
    wrapped = mgr.Ite(mgr.GE(now, mgr.Int(2)), mgr.Minus(now, mgr.Int(2)), now)
    b.add_trans(mgr.Equals(c_next, wrapped))
    b.add_assumption(mgr.And(mgr.GE(letter, mgr.Int(0)), mgr.LT(letter, mgr.Int(len(alphabet)))))
    return Acceptor(b.build(), tuple(alphabet), letter, mgr.Equals(wrapped, mgr.Int(0)), name,
                    lambda w: w.count(letter_counted) % 2 == 0)


def decide(system, engines=("bmc", "kind")):
    (verdict,) = run(system, RunOptions(engines=engines, solver="z3", timeout=60))
    return verdict


def test_nonempty_language_gives_shortest_word():
    system = language_query(Query.EMPTY, count_acceptor("ab", "a", 0))
    verdict = decide(system)
    assert verdict.answer is Answer.FALSIFIABLE
    assert word_of(verdict.trace, system.alphabet) == ["b"]


def test_not_universal_gives_shortest_word():
    system = language_query(Query.UNIVERSAL, count_acceptor("ab", "a", 0))
    verdict = decide(system)
    assert verdict.answer is Answer.FALSIFIABLE
    assert word_of(verdict.trace, system.alphabet) == ["a"]


def even_acceptor(alphabet: Sequence[str], letter_counted: str, name: str = "B") -> Acceptor:
    """Even count of a letter, tracked as "even so far" rather than "odd so far"."""
    b = SystemBuilder(name)
    mgr = b.mgr
    letter = b.input("letter", INT)
    even, even_next = b.state("even_before", BOOL)
    hit = mgr.Equals(letter, mgr.Int(alphabet.index(letter_counted)))
    now_even = mgr.Ite(hit, mgr.Not(even), even)
    b.add_init(even)
    b.add_trans(mgr.Iff(even_next, now_even))
    return Acceptor(b.build(), tuple(alphabet), letter, now_even, name,
                    lambda w: w.count(letter_counted) % 2 == 0)


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_equivalent_acceptors_are_proved(solver):
    system = language_query(Query.EQUIV, count_acceptor("ab", "a", 0), even_acceptor("ab", "a"))
    (verdict,) = run(system, RunOptions(engines=("kind",), solver=solver, timeout=60))
    assert verdict.answer is Answer.VALID


def test_inclusion_counterexample_and_alphabet_reordering():
    even_a = count_acceptor("ab", "a", 0)
    odd_a = count_acceptor("ba", "a", 1, name="B")
    system = language_query(Query.INCLUDE, even_a, odd_a)
    verdict = decide(system)
    assert verdict.answer is Answer.FALSIFIABLE
    assert word_of(verdict.trace, system.alphabet) == ["b"]


def test_letters_outside_an_alphabet_are_rejected_by_that_side():
    # B only knows 'a': any word with a 'c' is outside its language.
    a_side = count_acceptor("ac", "a", 0)
    b_side = count_acceptor("a", "a", 0, name="B")
    system = language_query(Query.INCLUDE, a_side, b_side)
    verdict = decide(system)
    assert verdict.answer is Answer.FALSIFIABLE
    assert word_of(verdict.trace, system.alphabet) == ["c"]
    reverse = language_query(Query.INCLUDE, b_side, a_side)
    assert decide(reverse).answer is Answer.VALID


def test_the_product_states_each_assumption_once():
    """Both sides read the whole alphabet and state the letter's range, as the product does:
    the product states it once (and its property still holds)."""
    system = language_query(Query.EQUIV, count_acceptor("ab", "a", 0), count_acceptor("ab", "a", 0, "B"))
    assert len(set(system.assumptions)) == len(system.assumptions)
    ranges = [a for a in system.assumptions if not a.is_iff()]
    assert len(ranges) == 1
    (verdict,) = run(system, RunOptions(engines=("kind",), solver="z3", timeout=60))
    assert verdict.answer is Answer.VALID
