"""Every Table 1 language in examples/crasp/ against a plain Python membership function, on all
words up to length 10 (vectorised evaluator) and up to length 6 (reference evaluator)."""

from __future__ import annotations

import itertools
import re

import pytest

from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.parser import load
from kinduct.frontends.crasp.vectorized import Batch, accepted
from tests.conftest import EXAMPLES

DIR = EXAMPLES / "crasp"


def dyck(w, depth=None):
    h = 0
    for c in w:
        h += 1 if c == "[" else -1
        if h < 0 or (depth is not None and h > depth):
            return False
    return h == 0


def next_argmax(w):
    counts: dict[tuple[str, str], int] = {}
    for i in range(1, len(w)):
        prev, cur = w[i - 1], w[i]
        # statistics of the prefix w[0..i-1]: transitions (w[k-1], w[k]) with k <= i-1
        best = max(counts.get((prev, c), 0) for c in "ab")
        if counts.get((prev, cur), 0) < best:
            return False
        counts[(prev, cur)] = counts.get((prev, cur), 0) + 1
    return True


def subsequence(w, pattern):
    it = iter(w)
    return all(c in it for c in pattern)


LANGUAGES = {
    "dyck1": lambda w: dyck(w),
    "d2": lambda w: dyck(w, 2),
    "d3": lambda w: dyck(w, 3),
    "d4": lambda w: dyck(w, 4),
    "astarbstar": lambda w: re.fullmatch("a*b*", w) is not None,
    "anbncn": lambda w: (n := len(w) // 3) > 0 and w == "a" * n + "b" * n + "c" * n,
    "aastar": lambda w: len(w) % 2 == 0,
    "containsab": lambda w: "ab" in w,
    "majority": lambda w: w.count("a") >= w.count("b"),
    "existential": lambda w: "a" in w,
    "pt2": lambda w: subsequence(w, "ab"),
    "pt3": lambda w: subsequence(w, "abc"),
    "tomita1": lambda w: "b" not in w,
    "tomita2": lambda w: re.fullmatch("(ab)*", w) is not None,
    "tomita4": lambda w: "aaa" not in w,
    "tomita7": lambda w: re.fullmatch("a*b*a*b*", w) is not None,
    "nextargmax": next_argmax,
}


def all_words(alphabet, max_len):
    for n in range(1, max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_example_language(name):
    program = load(DIR / f"{name}.crasp")
    member = LANGUAGES[name]
    words = [list(w) for w in all_words(program.alphabet, 10)]
    got = accepted(program, Batch.from_words(words, program.alphabet))
    wrong = [("".join(w), bool(g)) for w, g in zip(words, got, strict=True) if bool(g) != member("".join(w))]
    assert not wrong, wrong[:5]
    assert any(got) and not all(got)
    for w in all_words(program.alphabet, 6):
        assert accepts(program, list(w)) == member("".join(w)), w


def test_every_example_is_tested():
    names = {p.stem for p in DIR.glob("*.crasp")}
    assert names == set(LANGUAGES)
