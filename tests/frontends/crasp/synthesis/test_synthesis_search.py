"""The search: its scorer agrees with the frontend's evaluator, learning is reproducible, and the
printed program parses back and scores what was reported."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp import vectorized as V
from kinduct.frontends.crasp.parser import check, parse
from kinduct.frontends.crasp.synthesis.evaluator import Scorer
from kinduct.frontends.crasp.synthesis.languages import language
from kinduct.frontends.crasp.synthesis.search import Options, anneal, value_bound
from kinduct.frontends.crasp.synthesis.space import Shape, Space, prune


def _words(rng: random.Random, alphabet, n=40, max_len=12):
    return [[rng.choice(alphabet) for _ in range(rng.randint(0, max_len))] for _ in range(n)]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["2,1,2", "3,2,3", "1,0,1", "2,0,3"]),
       st.sampled_from([("a", "b"), ("a", "b", "c"), ("a",)]))
def test_scorer_and_mutations_agree_with_the_frontend(seed, shape, alphabet):
    """Random programs and chains of mutations: well-formed, printable, parsable, and the cached
    scorer accepts exactly what the frontend's vectorised evaluator accepts."""
    rng = random.Random(seed)
    space = Space(alphabet, Shape.parse(shape), rng)
    words = _words(rng, alphabet)
    labels = [rng.random() < 0.5 for _ in words]
    scorer = Scorer(words, labels, alphabet, bound=value_bound(words, space.shape))  # 16-bit
    batch = V.Batch.from_words(words, alphabet)
    program = space.random_program()
    for _ in range(15):
        program = space.mutate(program)
        text = A.to_source(program)
        back = parse(text)
        assert back == program
        check(back)
        expected = V.accepted(back, batch)
        assert np.array_equal(scorer.accepted(program), expected), text
        assert scorer.mis(program) == int(np.count_nonzero(expected != np.asarray(labels)))
        assert np.array_equal(scorer.accepted(prune(program)), expected)


def _data(name, n, seed):
    data = language(name).sample(n, seed)
    return [w for w, _ in data], [b for _, b in data]


@pytest.mark.slow  # a whole search
def test_learns_majority_and_reports_true_accuracy():
    words, labels = _data("majority", 300, 1)
    res = anneal(words, labels, ("a", "b"), Shape.parse("1,0,1"), Options(iterations=6000, seed=3))
    assert res.found and res.mis == 0 and res.stopped == "solved"
    program = parse(A.to_source(res.program))
    got = V.accepted(program, V.Batch.from_words(words, ("a", "b")))
    assert np.array_equal(got, np.asarray(labels))


@pytest.mark.slow  # three whole searches
def test_same_seed_same_program_other_seed_other_run():
    words, labels = _data("dyck1", 200, 2)
    opts = Options(iterations=1500, seed=11)
    a = anneal(words, labels, ("[", "]"), Shape.parse("2,1,1"), opts)
    b = anneal(words, labels, ("[", "]"), Shape.parse("2,1,1"), opts)
    c = anneal(words, labels, ("[", "]"), Shape.parse("2,1,1"), Options(iterations=1500, seed=12))
    assert A.to_source(a.program) == A.to_source(b.program)
    assert (a.mis, a.iterations) == (b.mis, b.iterations)
    assert a.history == b.history
    assert (A.to_source(c.program), c.history) != (A.to_source(a.program), a.history)


def test_budget_exhausted_on_parity_keeps_best():
    words, labels = _data("parity", 200, 0)
    res = anneal(words, labels, ("a", "b"), Shape.parse("2,1,2"), Options(iterations=800, seed=0))
    assert not res.found and res.stopped == "budget" and res.iterations == 800
    assert 0 < res.mis < len(words)
    parse(A.to_source(res.program))


def test_shape_parsing():
    assert Shape.parse("3, 2, 5") == Shape(3, 2, 5)
    for bad in ("3,2", "a,b,c", "0,1,1", "1,-1,2"):
        try:
            Shape.parse(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_chains_of_the_budget_and_chains_until_the_time_limit():
    """Each chain gets the iteration budget; ``chains=None`` starts new ones until the limit."""
    words, labels = _data("parity", 120, 1)
    three = anneal(words, labels, ("a", "b"), Shape.parse("2,1,2"), Options(iterations=300, seed=5, chains=3))
    assert not three.found and three.iterations == 900 and three.stopped == "budget"
    again = anneal(words, labels, ("a", "b"), Shape.parse("2,1,2"), Options(iterations=300, seed=5, chains=3))
    assert A.to_source(again.program) == A.to_source(three.program)
    timed = anneal(words, labels, ("a", "b"), Shape.parse("2,1,2"),
                   Options(iterations=200, seed=5, chains=None, time_limit=1.5))
    assert timed.stopped == "time" and not timed.found
