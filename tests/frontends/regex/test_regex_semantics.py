"""The .regex frontend's semantics, differentially: derivative membership against Python's
``re`` and a reference matcher on all short words, the DFA against derivatives, and the
queries' answers against brute force on all short words."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regex_strategies import ALPHABET, plain_trees, python_pattern, reference, source, trees

from kinduct.frontends.regex import dfa
from kinduct.frontends.regex.parser import parse
from kinduct.kernel.acceptor import Query, automaton_query

HEADER = "alphabet 'a', 'b'\n"


def words(max_len: int):
    for n in range(0, max_len + 1):
        for w in itertools.product(ALPHABET, repeat=n):
            yield "".join(w)


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(plain_trees)
def test_derivatives_agree_with_python_re(t):
    r = parse(HEADER + source(t))
    pattern = re.compile(python_pattern(t))
    for w in words(5):
        assert r.accepts(list(w)) == bool(pattern.fullmatch(w)), (source(t), w)


@SETTINGS
@given(trees)
def test_derivatives_agree_with_reference_matcher(t):
    r = parse(HEADER + source(t))
    for w in words(5):
        assert r.accepts(list(w)) == reference(t, w), (source(t), w)


@SETTINGS
@given(trees)
def test_dfa_agrees_with_derivatives(t):
    r = parse(HEADER + source(t))
    raw, _ = dfa.explore(r.algebra, r.term)
    small = dfa.minimise(raw)
    assert small.size <= raw.size
    for w in words(6):
        if w:
            assert raw.accepts(list(w)) == small.accepts(list(w)) == r.accepts(list(w)), (source(t), w)


def _brute(query: Query, ra, rb, max_len: int):
    for n in range(1, max_len + 1):
        for w in itertools.product(ALPHABET, repeat=n):
            in_a = ra.accepts(list(w))
            in_b = rb.accepts(list(w)) if rb is not None else False
            bad = {Query.EMPTY: in_a, Query.UNIVERSAL: not in_a, Query.INCLUDE: in_a and not in_b,
                   Query.EQUIV: in_a != in_b}[query]
            if bad:
                yield tuple(w)


@SETTINGS
@given(trees, trees, st.sampled_from(list(Query)))
def test_automaton_queries_agree_with_brute_force(ta, tb, query):
    ra, rb = parse(HEADER + source(ta)), parse(HEADER + source(tb))
    a = dfa.build(ra.algebra, ra.term)
    b = dfa.build(rb.algebra, rb.term) if query.binary else None
    ans = automaton_query(query, a, b, count=3)
    expected = list(itertools.islice(_brute(query, ra, rb if query.binary else None, 7), 3))
    # the automaton's words are the smallest by (length, alphabet order), so those up to
    # length 7 are exactly brute force's first ones
    assert [w for w in ans.words if len(w) <= 7] == expected
    # the product has at most a.size * b.size states, so a valid answer is exhaustive
    assert ans.product_states <= a.size * (b.size if b is not None else 1)


@pytest.mark.parametrize("text, word, expected", [
    ("a b* | c", "abbb", True), ("a b* | c", "c", True), ("a b* | c", "ac", False),
    ("~a*", "a", False), ("~a*", "ab", True), ("(~a)*", "ab", True), ("(~a)*", "a", False),
    ("(~a)*", "aa", True),
    ("a & ~a", "a", False), ("a.b", "acb", True), ("[ab]+c?", "abab", True), ("()", "a", False),
    ("a | b & c", "a", True), ("a | b & c", "b", False), ("ab & a.", "ab", True),
    ("'|' '*'", "|*", True), ("a -- comment ( |\n b", "ab", True), ("[]", "a", False),
])
def test_precedence_and_syntax(text, word, expected):
    r = parse("alphabet 'a', 'b', 'c', '|', '*'\n" + text)
    assert r.accepts(list(word)) is expected


def test_normal_form_makes_similar_terms_one_state():
    r = parse(HEADER + "(a|b|a)* & ~() & (b|a)*")
    assert str(r.term) == "~()"  # Σ* ∩ ~ε
    d = dfa.build(r.algebra, r.term)
    assert d.size == 2 and d.accepting == frozenset({1})
